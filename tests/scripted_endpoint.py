"""A local HTTP server speaking the OpenAI chat protocol from a script, and able to fail
the ways real endpoints fail: server errors, a refused key, rate limits, an HTML page, a
body that is not JSON, a reply that never comes, a connection closed without a reply."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

# A scripted reply: (HTTP status, JSON payload), or one of FAULTS by name.
Reply = tuple[int, dict] | str
FAULTS = ("html", "garbage", "not-chat", "hang", "close")


def completion(text: str, logprobs: list[tuple[str, float]] | None = None) -> dict:
    choice: dict = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
    if logprobs is not None:
        choice["logprobs"] = {"content": [{"token": t, "logprob": lp, "bytes": None, "top_logprobs": []}
                                          for t, lp in logprobs]}
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice],
            "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}}


@dataclass
class Endpoint:
    requests: list[dict] = field(default_factory=list)
    script: list[Reply] = field(default_factory=list)
    # When the script is used up: a reply made from the request, or HTTP 500 "no script".
    default: Callable[[dict], Reply] | None = None
    delay: float = 0.0  # seconds before each reply
    hang_seconds: float = 30.0
    released: threading.Event = field(default_factory=threading.Event)  # ends every hang at once

    def next_reply(self, request: dict) -> Reply:
        if self.script:
            return self.script.pop(0)
        if self.default is not None:
            return self.default(request)
        return 500, {"error": {"message": "no script"}}


class _Handler(BaseHTTPRequestHandler):
    state: Endpoint

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.state.requests.append(body)
        time.sleep(self.state.delay)
        reply = self.state.next_reply(body)
        if reply == "hang":
            self.state.released.wait(self.state.hang_seconds)
            return
        if reply == "close":
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        status, content_type, data = {
            "html": (200, "text/html", b"<html><body><h1>Welcome to nginx!</h1></body></html>"),
            "garbage": (200, "application/json", b'{"choices": [{"message": '),
            "not-chat": (200, "application/json", b'{"status": "ok", "detail": "proxy up"}'),
        }.get(reply) if isinstance(reply, str) else (reply[0], "application/json", json.dumps(reply[1]).encode())
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        if status == 429:
            self.send_header("retry-after-ms", "10")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[tuple[Endpoint, str]]:
    """(the script's state, the endpoint's base URL)."""
    state = Endpoint()
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Handler,), {"state": state}))
    server.daemon_threads = True
    server.handle_error = lambda request, address: None  # a client that gave up closed its socket
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        state.released.set()
        server.shutdown()
        server.server_close()
