"""The cyclic collector's pause: loads, memories and questions run with it off, and it is
back as the caller had it afterwards, however blocks nest or overlap across threads."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from agent import PoGContext, run_question
from agent.embeddings import Embedder
from agent.pog.state import Entity
from loaders import collector
from loaders.collector import cyclic_gc_paused
from tests.pog_fixture import analysis, film_store, scripted


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_nested_blocks_keep_it_off_until_the_outer_one_ends() -> None:
    with cyclic_gc_paused():
        assert not gc.isenabled()
        with cyclic_gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_blocks_on_two_threads_turn_it_on_when_the_last_ends() -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def second() -> None:
        first_in.wait()
        with cyclic_gc_paused():
            second_in.set()
            first_out.wait()
            seen["after the first left"] = gc.isenabled()

    thread = threading.Thread(target=second)
    thread.start()
    with cyclic_gc_paused():
        first_in.set()
        second_in.wait()
    first_out.set()
    thread.join()
    assert seen == {"after the first left": False}
    assert gc.isenabled()


def test_blocks_that_keep_overlapping_still_collect_now_and_then(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy server's questions overlap without a pause: one that ends while another runs
    collects once the collector has been off for `COLLECT_EVERY_S`."""
    collected: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda *args: collected.append(1) or 0)
    clock = [1000.0]
    monkeypatch.setattr(collector.time, "monotonic", lambda: clock[0])
    with cyclic_gc_paused():
        with cyclic_gc_paused():
            clock[0] += collector.COLLECT_EVERY_S / 2
        assert collected == []  # not yet
        with cyclic_gc_paused():
            clock[0] += collector.COLLECT_EVERY_S
        assert collected == [1] and not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off_and_an_error_restores_it() -> None:
    gc.disable()
    with cyclic_gc_paused():
        pass
    assert not gc.isenabled()
    gc.enable()
    with pytest.raises(RuntimeError), cyclic_gc_paused():
        raise RuntimeError("a failed question")
    assert gc.isenabled()


def test_a_question_runs_with_it_off_and_leaves_it_on() -> None:
    during: list[bool] = []

    def answer(prompt: str) -> str:
        during.append(gc.isenabled())
        return "ans: Penny Marshall"

    llm = scripted(analyse=analysis(1), answer=answer)
    state = run_question(PoGContext(film_store(), llm, Embedder()), "who directed Big", [Entity(id="Big", name="Big")])
    assert state["answers"] == ["Penny Marshall"]
    assert during == [False]
    assert gc.isenabled()
