"""`kgqa serve`: the HTTP API (ask, chat as server-sent events, threads, traces, schema)
and the page, driven in headless Chromium."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from agent.embeddings import Embedder
from kgqa.web.app import LOOPBACK_HOSTS, create_app
from tests.chat_fixture import film_chat, film_chat_model


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    graph, context = film_chat(tmp_path_factory.mktemp("web"), embedder=Embedder())
    return create_app(graph, context, allowed_hosts=["testserver", *LOOPBACK_HOSTS])


@pytest.fixture(scope="module")
def client(app) -> TestClient:
    return TestClient(app)


def events(response) -> list[tuple[str, dict]]:
    found = []
    for block in response.text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        found.append((lines["event"], json.loads(lines["data"])))
    return found


def test_ask_answers_with_paths_cost_and_a_trace(client) -> None:
    reply = client.post("/api/ask", json={"question": "who directed Big"})
    assert reply.status_code == 200
    body = reply.json()
    assert body["answers"] == ["Penny Marshall"] and body["source"] == "kg"
    assert body["sufficient"] and (body["decided_by"], body["why"]) == (
        "model", "the model named the end of a path ranked near the best")
    assert body["paths"][0]["text"] == "Big -> directed_by -> Penny Marshall" and body["paths"][0]["answer"]
    assert body["llm_calls"] == 2 and body["prompt_tokens"] > 0
    trace = client.get(f"/api/traces/{body['trace_id']}").json()
    assert trace["question"]["text"] == "who directed Big" and trace["predictions"] == ["Penny Marshall"]
    page = client.get(f"/traces/{body['trace_id']}")
    assert page.status_code == 200 and "<svg id='reasoning-graph'" in page.text


def test_chat_streams_node_events_then_the_answer_and_follow_ups_resolve(client) -> None:
    first = events(client.post("/api/chat", json={"message": "who directed Big", "thread_id": "web1"}))
    kinds = [kind for kind, _ in first]
    assert kinds[0] == "thread" and kinds[-1] == "answer" and "node" in kinds
    assert next(data["node"] for kind, data in first if kind == "node") == "analyse_question"
    assert first[-1][1]["answers"] == ["Penny Marshall"]
    second = events(client.post("/api/chat", json={"message": "when was it released?", "thread_id": "web1"}))
    resolved = dict(second)["resolved"]
    assert resolved == {"question": "when was Big released?", "referent": "Big"}
    assert dict(second)["answer"]["answers"] == ["1988"]
    thread = client.get("/api/threads/web1").json()
    assert [t["message"] for t in thread["turns"]] == ["who directed Big", "when was it released?"]
    new = events(client.post("/api/chat", json={"message": "who directed Big"}))
    assert new[0][1]["thread_id"] != "web1"  # no thread given: a new one


def test_bad_requests_are_refused_clearly(client) -> None:
    assert client.post("/api/ask", json={"question": ""}).status_code == 422
    control = client.post("/api/ask", json={"question": "who directed it", "topics": ["m.big\x07"]})
    assert control.status_code == 422 and "control characters" in control.text
    huge = client.post("/api/ask", json={"question": "who " * 2_500_000})  # 10 MB: over the body limit
    assert huge.status_code == 413 and len(huge.content) < 2_000  # refused unread, not echoed back
    long = client.post("/api/ask", json={"question": "who " * 100_000})  # under the limit, over the field's
    assert long.status_code == 422 and len(long.content) < 2_000
    assert client.post("/api/chat", json={"message": "hi", "thread_id": "../../etc"}).status_code == 422
    assert client.get("/api/traces/no-such-trace").status_code == 404
    assert client.get("/api/traces/a.b").status_code == 422  # ids never become arbitrary file names
    assert client.get("/api/threads/unknown").json() == {"thread_id": "unknown", "turns": []}


def test_the_openapi_schema_describes_the_api(client) -> None:
    schema = client.get("/openapi.json").json()
    assert {"/api/ask", "/api/chat", "/api/threads/{thread_id}", "/api/traces/{trace_id}"} <= set(schema["paths"])
    assert "question" in schema["components"]["schemas"]["AskRequest"]["properties"]


@pytest.fixture(scope="module")
def server_url(app) -> Iterator[str]:
    yield from serving(app)


def serving(app) -> Iterator[str]:
    """The app on a free local port, in a thread, until the generator is closed."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def test_the_page_answers_a_question_with_its_paths_and_shows_the_trace(server_url, browser) -> None:
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.goto(server_url)
    page.fill("#question", "who directed Big")
    page.click("#send")
    page.wait_for_selector(".bot .answer", timeout=30_000)
    assert page.inner_text(".bot .answer") == "Penny Marshall"
    assert page.locator(".bot .paths li").first.inner_text() == "Big -> directed_by -> Penny Marshall"
    page.fill("#question", "when was it released?")
    page.click("#send")
    page.wait_for_function("document.querySelectorAll('.bot .answer').length == 2", timeout=30_000)
    assert page.locator(".bot .answer").nth(1).inner_text() == "1988"
    assert "→ when was Big released?" in page.locator(".bot").nth(1).inner_text()
    page.locator(".trace-link").last.click()
    frame = page.frame_locator("#trace")
    frame.locator("#reasoning-graph .n-topic").wait_for(timeout=10_000)
    assert "when was Big released?" in frame.locator("h1").inner_text()
    page.close()


@pytest.fixture(scope="module")
def slow_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    graph, context = film_chat(tmp_path_factory.mktemp("slow"), llm=film_chat_model(delay=0.5), embedder=Embedder())
    yield from serving(create_app(graph, context))


def test_clients_that_leave_mid_answer_do_not_keep_the_server(slow_server_url: str) -> None:
    url = slow_server_url

    def leave_after_the_first_event() -> None:
        with httpx.stream("POST", f"{url}/api/chat", json={"message": "who directed Big"}, timeout=10) as stream:
            next(stream.iter_lines())  # "event: thread": the turn has begun; then the client is gone

    leavers = [threading.Thread(target=leave_after_the_first_event) for _ in range(4)]
    for leaver in leavers:
        leaver.start()
    for leaver in leavers:
        leaver.join(15)
    # Before the fix, the first dropped stream held the slot for ever and this hung.
    asked = httpx.post(f"{url}/api/ask", json={"question": "who directed Big"}, timeout=30)
    assert asked.status_code == 200 and asked.json()["answers"] == ["Penny Marshall"]
    chatted = httpx.post(f"{url}/api/chat", json={"message": "who directed Splash"}, timeout=30)
    assert [kind for kind, _ in events(chatted)][-1] == "answer"


def test_a_broken_model_endpoint_is_a_clear_answer_from_the_api(tmp_path, endpoint) -> None:
    from agent.llm.openai_compat import OpenAICompatibleClient

    state, url = endpoint
    state.default = lambda request: "html"  # a proxy's page where the model should be
    graph, context = film_chat(tmp_path, llm=OpenAICompatibleClient(url, "m", max_retries=0), embedder=Embedder())
    client = TestClient(create_app(graph, context, allowed_hosts=["testserver"]))
    asked = client.post("/api/ask", json={"question": "who directed Big"})
    assert asked.status_code == 503 and "not a chat completion" in asked.json()["detail"]
    streamed = events(client.post("/api/chat", json={"message": "who directed Big"}))
    assert streamed[-1][0] == "error" and "not a chat completion" in streamed[-1][1]["message"]


def test_a_body_over_the_limit_is_refused_before_it_is_read(app) -> None:
    """A 600 MB POST to /api/ask took the server from 1.35 to 2.52 GB, 1.82 GB held after."""
    client = TestClient(app)
    big = b'{"question": "' + b"x" * 2_000_000 + b'"}'
    declared = client.post("/api/ask", content=big, headers={"content-type": "application/json"})
    assert declared.status_code == 413 and "request body over 1,000,000 bytes" in declared.text

    def chunks():  # no Content-Length: counted as it arrives
        yield b'{"question": "'
        for _ in range(30):
            yield b"x" * 100_000
        yield b'"}'

    streamed = client.post("/api/ask", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413
    assert client.post("/api/ask", json={"question": "who directed Big"}).status_code == 200  # still serving


def test_only_the_hosts_it_was_bound_for_are_answered(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Any Host header was accepted, so a page elsewhere could reach a local server by DNS
    rebinding (its name resolving to 127.0.0.1)."""
    graph, context = film_chat(tmp_path_factory.mktemp("hosts"), embedder=Embedder())
    client = TestClient(create_app(graph, context), base_url="http://127.0.0.1:8000")
    assert client.get("/api/health").status_code == 200
    assert client.get("/api/health", headers={"host": "localhost:8000"}).status_code == 200
    assert client.get("/api/health", headers={"host": "attacker.example:8000"}).status_code == 400


def test_a_request_waiting_for_the_slot_during_shutdown_gets_503(tmp_path_factory: pytest.TempPathFactory) -> None:
    """During SIGTERM a queued request got HTTP 500 where the docs promise 503."""
    graph, context = film_chat(tmp_path_factory.mktemp("stop"), embedder=Embedder())
    stopping = threading.Event()
    client = TestClient(create_app(graph, context, allowed_hosts=["testserver"], stopping=stopping))
    stopping.set()
    reply = client.post("/api/ask", json={"question": "who directed Big"})
    assert reply.status_code == 503 and "shutting down" in reply.text


def test_text_that_is_not_unicode_is_refused(client) -> None:
    """A lone surrogate would fail deep in the store or the model client: the request
    validation refuses it (pydantic reads JSON strings as Unicode)."""
    reply = client.post("/api/ask", content=b'{"question": "who directed Big\\ud800"}',
                        headers={"content-type": "application/json"})
    assert reply.status_code == 422 and "unicode" in reply.text


def test_sigterm_tells_the_app_it_is_stopping() -> None:
    """The server `kgqa serve` runs sets the app's `stopping` event on SIGTERM (and
    Ctrl-C), before uvicorn's own shutdown: queued requests then get 503."""
    import signal

    from kgqa.cli.serve import stopping_server

    stopping = threading.Event()
    server = stopping_server(uvicorn.Config(lambda scope, receive, send: None), stopping)
    server.handle_exit(signal.SIGTERM, None)
    assert stopping.is_set() and server.should_exit
