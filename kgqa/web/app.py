"""The HTTP API and page. One agent (store, model, embeddings) serves every request, one
question at a time: the embedded model and the stores are not built for concurrent calls,
and a queue is honest about that where parallel requests would only slow each other. A
chat turn runs in a worker thread that stops at its next step when its client leaves, so
an abandoned stream never keeps the slot.

    GET  /                      the chat page
    POST /api/ask               one question → answer, evidence paths, cost, trace id
    POST /api/chat              one chat message → server-sent events (node, resolved, answer)
    GET  /api/threads/{id}      a thread's turns
    GET  /api/traces/{id}       a trace (JSON);  GET /traces/{id}: the same as a page
    GET  /openapi.json, /docs   the schema
"""

from __future__ import annotations

import asyncio
import json
import queue
import re
import sqlite3
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from importlib import resources
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from pydantic import AfterValidator, BaseModel, Field
from starlette.middleware.trustedhost import TrustedHostMiddleware

from agent.asking import answer_question
from agent.chat.context import ChatContext
from kg_store import InputError, KGQAError
from kgqa.traces import TraceError, load_trace
from kgqa.traces.page import trace_page

ID = re.compile(r"^[A-Za-z0-9_-]{1,140}$")  # thread and trace ids: also file names
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
SLOT_WAIT_S = 0.2  # how often a waiting turn looks whether its client is still there


def _entity_id(value: str) -> str:
    if CONTROL.search(value):
        raise ValueError("an entity id holds no control characters")
    return value


EntityId = Annotated[str, Field(min_length=1, max_length=2048), AfterValidator(_entity_id)]


class AskRequest(BaseModel):
    question: str = Field(min_length=1, max_length=2000)
    topics: list[EntityId] = Field(default_factory=list, max_length=20,
                                   description="Topic entity ids; default: linked from the text.")


class ChatRequest(BaseModel):
    message: str = Field(min_length=1, max_length=2000)
    thread_id: str | None = Field(default=None, pattern=ID.pattern, description="Default: a new thread.")


class PathOut(BaseModel):
    text: str
    score: float
    phase: str
    answer: bool
    start: dict[str, str]
    relations: list[list[Any]]
    ends: list[dict[str, str]]
    ends_total: int
    evidence: list[list[dict[str, str]]]


class Answer(BaseModel):
    question: str
    answers: list[str]
    source: str | None
    sufficient: bool = False  # whether the evidence was judged sufficient
    decided_by: str | None = None  # model, memory, structure or fallback
    why: str | None = None  # the answer's reason, in a sentence
    paths: list[PathOut]
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    trace_id: str | None


class Turn(Answer):
    message: str
    referent: str | None


class Thread(BaseModel):
    thread_id: str
    turns: list[Turn]


MAX_BODY_BYTES = 1_000_000  # a question is at most 2,000 characters: a megabyte is generous
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


class BodyLimit:
    """Refuses a request body over `limit` bytes with 413, before it is read into memory:
    by its Content-Length, and, for a body sent without one (chunked), as it arrives."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(send)
            return
        seen = 0
        refused = False

        async def counted() -> dict:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:  # answer now; the app reads a client that left
                    refused = True
                    await self._refuse(send)
                    return {"type": "http.disconnect"}
            return message

        async def unless_refused(message: dict) -> None:
            if not refused:
                await send(message)

        try:
            await self.app(scope, counted, unless_refused)
        except Exception:
            if not refused:
                raise

    async def _refuse(self, send: Callable) -> None:
        body = json.dumps({"detail": f"request body over {self.limit:,} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def create_app(chat_graph: Any, context: ChatContext, *, allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
               max_body_bytes: int = MAX_BODY_BYTES, stopping: threading.Event | None = None) -> FastAPI:
    """The app over a compiled chat graph (with its checkpointer) and its context.
    `allowed_hosts`: the Host headers it answers (the names it was bound for: a page on
    another site cannot reach a local server by DNS rebinding); `max_body_bytes`: larger
    request bodies are refused unread; `stopping`: set when the server shuts down, so that
    requests still waiting for the answering slot get 503."""
    app = FastAPI(title="kgqa", summary="Question answering over knowledge graphs: the Paths-over-Graph agent.")
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))
    app.add_middleware(BodyLimit, limit=max_body_bytes)
    busy = threading.Lock()
    stopping = stopping or threading.Event()

    def take_slot(left: threading.Event | None = None) -> str | None:
        """Wait for the one answering slot and hold it; or why it was not taken: "left"
        (the client went away) or "stopping" (the server is shutting down)."""
        while not busy.acquire(timeout=SLOT_WAIT_S):
            if left is not None and left.is_set():
                return "left"
            if stopping.is_set():
                return "stopping"
        if stopping.is_set():
            busy.release()
            return "stopping"
        return None

    @app.exception_handler(RequestValidationError)
    async def refused(_: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI echoes each bad input back: a 10 MB question would come back whole.
        errors = [{"loc": e.get("loc"), "msg": e.get("msg"), "type": e.get("type")} for e in exc.errors()]
        return JSONResponse({"detail": errors}, status_code=422)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> str:
        return (resources.files("kgqa") / "web" / "index.html").read_text(encoding="utf-8")

    @app.get("/api/health")
    def health() -> dict[str, str]:
        return {"store": context.pog.store.display_url, "model": context.pog.llm.model_name}

    @app.post("/api/ask", response_model=Answer)
    def ask(request: AskRequest) -> dict:
        if take_slot():
            raise HTTPException(503, "the server is shutting down")
        try:
            answered = answer_question(context.pog, request.question.strip(),
                                       [{"id": t, "name": t} for t in request.topics], graph=context.pog_graph,
                                       trace_dir=context.trace_dir)
        except InputError as exc:  # an id the store cannot take: the request's fault
            raise HTTPException(422, str(exc)) from exc
        except KGQAError as exc:  # the store or the model failed us
            raise HTTPException(503, str(exc)) from exc
        finally:
            busy.release()
        return answered

    @app.post("/api/chat", responses={200: {"content": {"text/event-stream": {}},
                                            "description": "events: thread, resolved, node, answer, error"}})
    def chat(request: ChatRequest) -> StreamingResponse:
        thread = request.thread_id or uuid.uuid4().hex[:8]
        return StreamingResponse(_chat_events(thread, request.message.strip()), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    async def _chat_events(thread: str, message: str) -> AsyncIterator[str]:
        yield _sse("thread", {"thread_id": thread})
        events: queue.Queue[str | None] = queue.Queue()
        left = threading.Event()  # the client went away
        worker = threading.Thread(target=_chat_turn, args=(thread, message, events.put, left), daemon=True,
                                  name=f"kgqa-chat-{thread}")
        worker.start()
        try:
            while True:
                try:
                    event = events.get_nowait()
                except queue.Empty:
                    await asyncio.sleep(0.05)  # where a dropped connection cancels this stream
                    continue
                if event is None:
                    return
                yield event
        finally:
            left.set()

    def _chat_turn(thread: str, message: str, emit: Callable[[str | None], None], left: threading.Event) -> None:
        """One chat turn, in its own thread; it stops at the next step once `left` is set."""
        config = {"configurable": {"thread_id": thread}}
        not_taken = take_slot(left)
        if not_taken:
            if not_taken == "stopping":
                emit(_sse("error", {"message": "the server is shutting down"}))
            emit(None)
            return
        try:
            for mode, chunk in chat_graph.stream({"message": message}, config, context=context,
                                                 stream_mode=["updates", "custom"]):
                if left.is_set():
                    return
                if mode == "custom":
                    emit(_sse("node", chunk))
                elif "resolve_turn" in chunk:
                    resolved = chunk["resolve_turn"]
                    emit(_sse("resolved", {"question": resolved["resolved"], "referent": resolved["referent"]}))
            turns = (chat_graph.get_state(config).values or {}).get("turns") or []
            if not turns:  # the history lost the turn it just wrote: a damaged file
                emit(_sse("error", {"message": "the chat history did not keep this turn: restart kgqa serve, which "
                                               "checks the file and moves a damaged one aside"}))
                return
            turn = turns[-1]
            emit(_sse("answer", {**turn, "question": turn["resolved"], "thread_id": thread}))
        except KGQAError as exc:  # the stream has begun: report in it rather than cut it
            emit(_sse("error", {"message": str(exc)}))
        except sqlite3.DatabaseError as exc:  # damaged since the server started (checked when it did)
            emit(_sse("error", {"message": f"the chat history is damaged ({exc}): restart kgqa serve, which moves "
                                           "the damaged file aside and keeps it"}))
        except Exception as exc:  # noqa: BLE001 - a stream must end with an event, never just stop
            emit(_sse("error", {"message": f"internal error: {type(exc).__name__}: {exc}"}))
        finally:
            busy.release()
            emit(None)

    @app.get("/api/threads/{thread_id}", response_model=Thread)
    def thread(thread_id: str) -> dict:
        _check(thread_id)
        values = chat_graph.get_state({"configurable": {"thread_id": thread_id}}).values or {}
        turns = [{**t, "question": t["resolved"]} for t in values.get("turns") or []]
        return {"thread_id": thread_id, "turns": turns}

    @app.get("/api/traces/{trace_id}")
    def trace(trace_id: str) -> dict:
        return _trace(trace_id)

    @app.get("/traces/{trace_id}", response_class=HTMLResponse)
    def trace_view(trace_id: str) -> str:
        return trace_page(_trace(trace_id))

    def _trace(trace_id: str) -> dict:
        _check(trace_id)
        if context.trace_dir is None:
            raise HTTPException(404, "this server keeps no traces")
        try:
            return load_trace(context.trace_dir / f"{trace_id}.json")
        except TraceError as exc:
            raise HTTPException(404, f"no trace {trace_id}") from exc

    return app


def _check(identifier: str) -> None:
    if not ID.match(identifier):
        raise HTTPException(422, "ids are letters, digits, '_' and '-'")


def _sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
