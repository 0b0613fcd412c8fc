"""The graphs of `langgraph.json` under LangGraph's own API server, run as a person runs
it: `langgraph dev --no-browser --no-reload` on a free 127.0.0.1 port, driven with the
`langgraph_sdk` client, answering from an Oxigraph store with a scripted model endpoint.
The server passes no Python objects, only JSON (a run's `context`), and draws Studio's
forms from the assistants' schemas; both are checked here."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kg_store import open_store
from tests.conftest import unavailable
from tests.pog_fixture import analysis, film_batch, prompt_kind
from tests.scripted_endpoint import completion

ROOT = Path(__file__).resolve().parents[1]
STARTUP_SECONDS = 120

pytestmark = pytest.mark.server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def langgraph_dev(workdir: Path, env: dict[str, str]) -> Iterator[str]:
    """`langgraph dev` serving the repository's langgraph.json, started in `workdir` (its
    own .langgraph_api lands there) with `env` as the config's environment; yields the
    server's URL and stops the server on the way out, whatever happened."""
    config = json.loads((ROOT / "langgraph.json").read_text())
    # The shipped graphs (modules, or files made absolute) and dependencies, so the server can
    # start elsewhere; the environment comes from the test, never from a developer's own .env.
    config["graphs"] = {name: str((ROOT / reference).resolve()) if "/" in reference else reference
                        for name, reference in config["graphs"].items()}
    config["dependencies"] = [str((ROOT / dependency).resolve()) for dependency in config["dependencies"]]
    config["env"] = env
    (workdir / "langgraph.json").write_text(json.dumps(config))
    port = free_port()
    process_env = {k: v for k, v in os.environ.items() if not k.startswith("KGQA_")}
    process_env.update(LANGGRAPH_CLI_NO_ANALYTICS="1", LANGGRAPH_NO_VERSION_CHECK="true", LANGSMITH_TRACING="false")
    log_path = workdir / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1",
             "--port", str(port), "--config", str(workdir / "langgraph.json")],
            cwd=workdir, env=process_env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(process, url, log_path)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        # Shown by pytest only when the test failed: what the server said.
        print("\n".join(log_path.read_text(errors="replace").splitlines()[-60:]))


def wait_until_ready(process: subprocess.Popen, url: str, log_path: Path) -> None:
    import httpx

    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"langgraph dev exited with {process.returncode}:\n{log_path.read_text(errors='replace')[-4000:]}")
        try:
            if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    pytest.fail(f"langgraph dev did not answer in {STARTUP_SECONDS}s")


def film_replies(request: dict) -> tuple[int, dict]:
    """The model's side of every question here, by prompt kind."""
    prompt = request["messages"][-1]["content"]
    if prompt_kind(prompt) == "analyse":
        return 200, completion(analysis(1, topics=("Big",)))
    return 200, completion("ans: 1988" if "released" in prompt else "ans: Penny Marshall")


def test_both_graphs_answer_under_langgraph_dev(tmp_path, endpoint) -> None:
    for module in ("langgraph_api", "langgraph_cli", "langgraph_sdk"):
        try:
            __import__(module)
        except ImportError:
            unavailable(f"{module} is not installed (pip install 'langgraph-cli[inmem]')")
    from langgraph_sdk import get_sync_client

    with open_store(f"oxigraph:{tmp_path / 'store'}") as store:
        store.write(film_batch())
    state, llm_url = endpoint
    state.default = film_replies
    env = {"KGQA_DATA_DIR": str(tmp_path / "data"), "KGQA_STORE": f"oxigraph:{tmp_path / 'store'}",
           "KGQA_LLM_BASE_URL": llm_url, "KGQA_LLM_MODEL": "scripted", "KGQA_LLM_CACHE": "false"}
    (tmp_path / "server").mkdir()
    with langgraph_dev(tmp_path / "server", env) as url:
        client = get_sync_client(url=url)
        assistants = {a["graph_id"]: a["assistant_id"] for a in client.assistants.search()}
        assert set(assistants) == {"kgqa_chat", "kgqa_pog"}

        # Typed schemas: what Studio draws its input and context forms from.
        pog_schemas = client.assistants.get_schemas(assistants["kgqa_pog"])
        assert pog_schemas["input_schema"]["required"] == ["question"]
        assert set(pog_schemas["input_schema"]["properties"]) == {"question", "given_topics"}
        assert {"answers", "source", "answer_path"} <= set(pog_schemas["output_schema"]["properties"])
        chat_schemas = client.assistants.get_schemas(assistants["kgqa_chat"])
        assert chat_schemas["input_schema"]["required"] == ["message"]
        assert set(chat_schemas["output_schema"]["properties"]) == {"turns"}
        for schemas in (pog_schemas, chat_schemas):
            assert set(schemas["context_schema"]["properties"]) == {"store_url", "llm_base_url", "llm_model"}

        # PoG, with nothing but the settings behind it.
        thread = client.threads.create()["thread_id"]
        result = client.runs.wait(thread, "kgqa_pog", input={"question": "who directed Big"})
        assert result["answers"] == ["Penny Marshall"] and result["source"] == "kg"
        assert result["answer_path"]["text"] == "Big -> directed_by -> Penny Marshall"
        assert "events" not in result  # the output schema, not the whole state
        assert {r["model"] for r in state.requests} == {"scripted"}

        # The chat, its model named by the run's context; the server's checkpointer keeps the
        # thread, so the follow-up's "it" is the first turn's film.
        asked_before = len(state.requests)
        thread = client.threads.create()["thread_id"]
        context = {"llm_model": "scripted-chat"}
        client.runs.wait(thread, "kgqa_chat", input={"message": "who directed Big"}, context=context)
        result = client.runs.wait(thread, "kgqa_chat", input={"message": "when was it released?"}, context=context)
        first, second = result["turns"]
        assert first["answers"] == ["Penny Marshall"] and second["answers"] == ["1988"]
        assert second["resolved"] == "when was Big released?"
        assert {r["model"] for r in state.requests[asked_before:]} == {"scripted-chat"}
        assert (tmp_path / "data" / "traces" / f"{second['trace_id']}.json").is_file()
