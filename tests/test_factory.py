"""The one agent factory: every entry point gets the same PoG context from the settings."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent.assembly.context import model_in_background, open_settings_store, pog_context, warm_up
from agent.embeddings import Embedder
from agent.llm import FakeLLM
from agent.pog.config import PoGConfig
from agent.pog.context import PoGContext
from agent.pog.graph import run_question
from agent.pog.state import Entity
from kgqa.settings import Settings
from tests.pog_fixture import analysis, film_store, scripted


def test_the_embedded_model_s_weights_reach_every_context(tmp_path: Path) -> None:
    """GraphRAG-FI reads the embedded model's attention from its weights: `eval` used to be
    the only entry point that passed them, so `ask`, `chat` and `serve` fell back to
    similarity (or failed with `fi.coarse=attention`)."""
    settings = Settings(data_dir=tmp_path, llm="qwen-1.5b", llm_base_url=None,
                        pog=PoGConfig(width=2))
    embedder = Embedder()
    context = pog_context(settings, film_store(), FakeLLM(["ans: x"]), embedder)
    assert context.model_weights == tmp_path / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert context.config.width == 2  # the settings' PoG knobs, not the defaults
    # an endpoint's weights cannot be read: no weights, so FI's similarity scorer stands in
    remote = settings.model_copy(update={"llm_base_url": "http://127.0.0.1:9/v1"})
    assert pog_context(remote, film_store(), FakeLLM(["ans: x"]), embedder).model_weights is None


def test_the_store_opens_from_the_settings(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    with open_settings_store(settings) as store:  # the settings' own: the embedded store in data_dir
        assert store.stats().triples == 0
    assert (tmp_path / "store").exists()


def test_the_warm_up_reads_ahead_the_start_of_the_prompts_a_question_sends() -> None:
    """A chat primes the model while the user types: what it primes must be the start of
    the requests the first question then sends (else the server's prompt cache has nothing
    to reuse), and it takes no scripted reply and counts no call."""
    llm = scripted(analyse=analysis(1, "Big -> directed by -> answer"), answer="ans: Penny Marshall")
    context = PoGContext(film_store(), llm, Embedder(), PoGConfig())  # no memory: the analysis is asked
    warm_up(context)
    assert len(llm.primed) == 2 and llm.calls == [] and llm.usage.calls == 0
    assert context.embedder.bulk_loaded  # a large batch later does not load torch mid-answer
    state = run_question(context, "who directed Big", [Entity(id="Big", name="Big")])
    assert state["answers"] == ["Penny Marshall"]
    sent = [call[-1]["content"] for call in llm.calls]
    primed = [messages[-1]["content"] for messages in llm.primed]
    assert len(sent) == 2 and all(request.startswith(head) and len(head) > 100 for request, head in zip(sent, primed))


def test_leaving_while_the_model_starts_abandons_the_start_rather_than_waiting_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Ctrl-C during `kgqa demo`'s start-up: the start (join, server, a wait of seconds for it
    # to answer) must give up and stop its server, not be waited for to its end.
    import agent.assembly.models

    heard: list[str] = []

    @contextmanager
    def slow_start(settings: Settings, abandoned: threading.Event | None = None,
                   on_weights_joined: object = None) -> Iterator[FakeLLM]:
        assert abandoned is not None
        heard.append("abandoned" if abandoned.wait(30) else "waited out")
        raise RuntimeError("the start gave up")
        yield FakeLLM([])  # unreachable: the start never ends well here

    monkeypatch.setattr(agent.assembly.models, "open_llm", slow_start)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt), model_in_background(Settings(data_dir=tmp_path)):
        raise KeyboardInterrupt
    assert heard == ["abandoned"] and time.monotonic() - started < 10


def test_open_agent_answers_and_closes_what_it_opened(tmp_path: Path, endpoint, monkeypatch) -> None:
    """One way to open the agent: store, model, embeddings and memory together; the
    Python recipe in docs/agent.md is this."""
    import json

    from agent import open_agent
    from kg_store.oxigraph import OxigraphStore
    from loaders.load import load_file
    from tests.scripted_endpoint import completion

    state, url = endpoint
    state.default = lambda request: (200, completion(
        json.dumps({"topic_entities": ["Big"], "split_questions": [], "indicator": "", "depth": 1})
        if request.get("response_format") else "ans: Penny Marshall"))
    kb = tmp_path / "kb.txt"
    kb.write_text("Big|directed_by|Penny Marshall\nBig|release_year|1988\n")
    with open_settings_store(Settings(data_dir=tmp_path), f"oxigraph:{tmp_path / 'films'}") as store:
        load_file(store, "metaqa", kb)
    # The recipe's setting: not the data folder's default store, so a misnamed one would fail.
    settings = Settings(data_dir=tmp_path, store=f"oxigraph:{tmp_path / 'films'}", llm_base_url=url,
                        llm_model="scripted", llm_cache=False)
    closed: list[str] = []
    close = OxigraphStore.close
    monkeypatch.setattr(OxigraphStore, "close", lambda self: (closed.append(self.display_url), close(self))[1])
    with open_agent(settings) as qa:
        answered = qa.ask("who directed [Big]?")
        assert closed == []
    assert answered["answers"] == ["Penny Marshall"] and answered["source"] == "kg"
    assert answered["paths"][0]["text"] == "Big -> directed_by -> Penny Marshall"
    assert len(closed) == 1  # the store, closed with the agent


def test_building_a_context_does_no_io(tmp_path: Path) -> None:
    """`PoGContext` loaded the path memory as a side effect of being built: a missing file
    failed there, and a context built twice loaded it twice."""
    missing = tmp_path / "no-such-memory.jsonl"
    context = PoGContext(film_store(), FakeLLM(["ans: x"]), Embedder(), PoGConfig(path_memory=missing))
    assert context.memory is None


def test_open_agent_can_answer_before_the_model_has_started_and_open_a_store_still_loading(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`kgqa demo` on first use: the KG loads in another process while the model starts,
    and the question's walks start before the model is up. The store is opened only after
    the load says it is ready, and each start-up step is heard as it ends."""
    import agent.assembly.models
    from agent import open_agent
    from loaders.load import load_file

    model_may_start = threading.Event()
    llm = scripted(analyse=analysis(1, "Big -> directed by -> answer"), answer="ans: Penny Marshall")

    @contextmanager
    def slow_start(settings: Settings, abandoned: object = None, on_weights_joined: object = None) -> Iterator[FakeLLM]:
        assert model_may_start.wait(30)
        yield llm

    monkeypatch.setattr(agent.assembly.models, "open_llm", slow_start)
    url = f"oxigraph:{tmp_path / 'films'}"
    steps: list[str] = []

    def load() -> None:  # the first-use load: the store does not exist before it ends
        kb = tmp_path / "kb.txt"
        kb.write_text("Big|directed_by|Penny Marshall\n")
        with open_settings_store(Settings(data_dir=tmp_path), url) as store:
            load_file(store, "metaqa", kb)

    settings = Settings(data_dir=tmp_path, store=url)
    with open_agent(settings, wait_for_model=False, store_loading=load, on_step=steps.append) as qa:
        assert steps == ["embeddings", "store"]  # returned while the model is still starting
        threading.Timer(0.5, model_may_start.set).start()
        answered = qa.ask("who directed [Big]?")
    assert answered["answers"] == ["Penny Marshall"] and answered["source"] == "kg"
    assert steps == ["embeddings", "store", "model"]
