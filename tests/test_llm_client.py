"""The model layer: tolerant parsing, repair retry, accounting, the response cache, and
the OpenAI-compatible client against a real local HTTP server speaking the protocol."""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from pydantic import BaseModel

from agent.llm import FakeLLM, LLMClient, LLMError, LLMTimeout, LLMUnavailable, ModelNotFound
from agent.llm.cache import CachedLLM
from agent.llm.openai_compat import OpenAICompatibleClient
from agent.llm.parsing import parse_reply
from agent.llm.starting import StartingLLM
from tests.scripted_endpoint import Endpoint, completion


class Entities(BaseModel):
    entities: list[str]
    depth: int = 1


@pytest.mark.parametrize(
    "text",
    [
        '{"entities": ["Tom Hanks"], "depth": 2}',
        'Sure! Here it is:\n```json\n{"entities": ["Tom Hanks"], "depth": 2}\n```',
        "The answer is {'entities': ['Tom Hanks'], 'depth': 2,} as requested.",
        'noise {"x": 1} then {"entities": ["Tom Hanks"], "depth": 2} end',
        '{"entities": ["Tom Hanks"], "depth": 2',  # cut off by the token limit: closed, not lost
    ],
)
def test_parse_reply_finds_the_object(text: str) -> None:
    parsed, error = parse_reply(text, Entities)
    assert error is None and parsed == Entities(entities=["Tom Hanks"], depth=2)


@pytest.mark.parametrize("text", ["", "I do not know.", "{not json at all", '{"entities": "Tom"}', "{'depth': 'deep'}"])
def test_parse_reply_never_raises_on_garbage(text: str) -> None:
    parsed, error = parse_reply(text, Entities)
    assert parsed is None and error


def test_one_repair_retry_then_success_is_counted() -> None:
    llm = FakeLLM(["no json here", '{"entities": ["Forrest Gump"]}'])
    reply = llm.chat([{"role": "user", "content": "extract"}], schema=Entities)
    assert reply.parsed == Entities(entities=["Forrest Gump"])
    assert llm.usage.calls == 2
    assert "not valid JSON" in llm.calls[1][-1]["content"]  # the repair request says why


def test_garbage_twice_gives_no_object_and_no_exception() -> None:
    llm = FakeLLM(["???", "still ???"])
    reply = llm.chat([{"role": "user", "content": "extract"}], schema=Entities)
    assert reply.parsed is None and reply.parse_error
    assert llm.usage.calls == 2


def test_cache_serves_identical_requests_and_persists(tmp_path: Path) -> None:
    inner = FakeLLM(["first", "second", "third"])
    cached = CachedLLM(inner, tmp_path / "cache.sqlite")
    ask = [{"role": "user", "content": "q"}]
    assert cached.chat(ask).text == "first"
    again = cached.chat(ask)
    assert again.text == "first" and again.cached and len(inner.calls) == 1
    assert cached.chat(ask, temperature=0.4).text == "second"  # a different request
    cached.close()
    reopened = CachedLLM(FakeLLM([]), tmp_path / "cache.sqlite")
    assert reopened.chat(ask).text == "first"
    assert reopened.usage.cache_hits == 1


def test_priming_reaches_the_model_past_the_cache_and_is_not_counted(tmp_path: Path) -> None:
    inner = FakeLLM(["reply"])
    cached = CachedLLM(inner, tmp_path / "cache.sqlite")
    head = [{"role": "user", "content": "Here are reasoning paths"}]
    cached.prime(head)
    cached.prime(head)  # read again: a stored reply would have skipped the model
    assert inner.primed == [head, head] and cached.usage.calls == 0 and not cached.chat(head).cached


def test_a_starting_model_takes_requests_at_once_and_answers_them_once_started() -> None:
    starting: Future[LLMClient] = Future()
    llm = StartingLLM(starting)
    ask = [{"role": "user", "content": "q"}]

    def question() -> tuple[str, int]:
        with llm.track() as usage:
            return llm.chat(ask).text, usage.calls

    with ThreadPoolExecutor(1) as running:
        asked = running.submit(question)
        time.sleep(0.05)
        assert not asked.done()  # waits for the start, does not fail
        inner = FakeLLM(["answer"], name="qwen")
        starting.set_result(inner)
        assert asked.result(timeout=5) == ("answer", 1)  # counted where the question tracks it
    assert inner.calls == [ask] and llm.model_name == "qwen"
    failed: Future[LLMClient] = Future()
    failed.set_exception(LLMUnavailable("the local llama.cpp server exited at start"))
    with pytest.raises(LLMUnavailable, match="exited at start"):  # the start's error, at the first request
        StartingLLM(failed).chat(ask)


# ---- against a local server speaking the OpenAI chat protocol ------------------------------


def test_completion_with_logprobs_and_usage(endpoint: tuple[Endpoint, str]) -> None:
    state, url = endpoint
    state.script = [(200, completion("Paris", [("Par", -0.1), ("is", -0.05)]))]
    client = OpenAICompatibleClient(url, "m", max_retries=0)
    reply = client.chat([{"role": "user", "content": "capital of France?"}], logprobs=True, temperature=0.3)
    assert (reply.text, reply.prompt_tokens, reply.completion_tokens) == ("Paris", 11, 3)
    assert reply.logprobs == [("Par", -0.1), ("is", -0.05)]
    assert state.requests[0]["temperature"] == 0.3 and state.requests[0]["logprobs"] is True

    without = OpenAICompatibleClient(url, "m", max_retries=0, logprobs=False)  # the embedded server's default
    with pytest.raises(LLMError, match="without token logprobs"):
        without.chat([{"role": "user", "content": "capital of France?"}], logprobs=True)
    assert len(state.requests) == 1  # refused before any request


@pytest.mark.parametrize("mode, expected_type", [("json_schema", "json_schema"), ("json_object", "json_object")])
def test_structured_output_request_per_backend(endpoint: tuple[Endpoint, str], mode: str, expected_type: str) -> None:
    state, url = endpoint
    state.script = [(200, completion('{"entities": ["Tom Hanks"]}'))]
    client = OpenAICompatibleClient(url, "m", max_retries=0, structured=mode)  # type: ignore[arg-type]
    reply = client.chat([{"role": "user", "content": "x"}], schema=Entities)
    assert reply.parsed == Entities(entities=["Tom Hanks"])
    fmt = state.requests[0]["response_format"]
    assert fmt["type"] == expected_type
    schema = fmt["json_schema"]["schema"] if mode == "json_schema" else fmt["schema"]
    assert "entities" in schema["properties"]


def test_gbnf_mode_sends_a_grammar_for_the_schema(endpoint: tuple[Endpoint, str]) -> None:
    pytest.importorskip("llama_cpp")
    state, url = endpoint
    state.script = [(200, completion('{"entities": ["Tom Hanks"]}'))]
    client = OpenAICompatibleClient(url, "m", max_retries=0, structured="gbnf")
    reply = client.chat([{"role": "user", "content": "x"}], schema=Entities)
    assert reply.parsed == Entities(entities=["Tom Hanks"])
    grammar = state.requests[0]["grammar"]
    assert "root ::=" in grammar and '\\"entities\\"' in grammar and "response_format" not in state.requests[0]


def test_rate_limit_is_retried(endpoint: tuple[Endpoint, str]) -> None:
    state, url = endpoint
    state.script = [(429, {"error": {"message": "slow down"}}), (200, completion("ok"))]
    client = OpenAICompatibleClient(url, "m", max_retries=2)
    assert client.chat([{"role": "user", "content": "x"}]).text == "ok"
    assert len(state.requests) == 2


def test_priming_asks_one_token_and_a_failure_is_left_to_the_next_request(endpoint: tuple[Endpoint, str]) -> None:
    state, url = endpoint
    state.script = [(200, completion("Here"))]
    client = OpenAICompatibleClient(url, "m", max_retries=0)
    client.prime([{"role": "user", "content": "Here are reasoning paths"}])
    assert state.requests[0]["max_tokens"] == 1 and client.usage.calls == 0
    OpenAICompatibleClient("http://127.0.0.1:9/v1", "m", max_retries=0).prime([{"role": "user", "content": "x"}])


def test_wrong_model_and_unreachable_endpoint_are_clear_errors(endpoint: tuple[Endpoint, str]) -> None:
    state, url = endpoint
    state.script = [(404, {"error": {"message": "model 'nope' not found"}})]
    with pytest.raises(ModelNotFound, match="does not serve model 'nope'"):
        OpenAICompatibleClient(url, "nope", max_retries=0).chat([{"role": "user", "content": "x"}])
    with pytest.raises(LLMUnavailable, match=r"127\.0\.0\.1:9/v1"):
        OpenAICompatibleClient("http://127.0.0.1:9/v1", "m", max_retries=0, timeout=2).chat([{"role": "user", "content": "x"}])


def test_a_reply_slower_than_the_timeout_is_a_timeout_not_an_unreachable_endpoint(endpoint: tuple[Endpoint, str]) -> None:
    state, url = endpoint
    state.delay, state.script = 1.0, [(200, completion("late"))]
    with pytest.raises(LLMTimeout, match="no reply within 0.3s"):
        OpenAICompatibleClient(url, "m", max_retries=0, timeout=0.3).chat([{"role": "user", "content": "x"}])


def test_a_pool_runs_requests_on_idle_copies_at_once_and_queues_the_rest() -> None:
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from agent.llm.pool import PooledLLM

    running, most, lock = 0, 0, threading.Lock()
    release = threading.Event()

    def slow(messages: list) -> str:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        release.wait(5)
        with lock:
            running -= 1
        return "ok"

    copies = [FakeLLM(slow, name="m"), FakeLLM(slow, name="m")]
    pool = PooledLLM(copies)
    with ThreadPoolExecutor(4) as callers:
        replies = [callers.submit(pool.chat, [{"role": "user", "content": f"q{i}"}]) for i in range(4)]
        threading.Timer(0.3, release.set).start()
        assert [r.result(10).text for r in replies] == ["ok"] * 4
    assert most == 2  # both copies busy at once, never a copy answering two at a time
    assert sorted(len(c.calls) for c in copies) != [0, 4] and sum(len(c.calls) for c in copies) == 4
    assert pool.usage.calls == 4 and pool.model_name == "m"
