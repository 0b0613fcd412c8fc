"""The chat graph's two nodes (resolve the follow-up, answer it with PoG) and the
one-question run both the chat and `kgqa serve`'s ask use."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langgraph.config import get_config, get_stream_writer
from langgraph.runtime import Runtime

from agent.chat.context import ChatContext
from agent.chat.references import resolve_references
from agent.chat.state import ChatState, ChatTurn
from agent.events import Update
from agent.pipelines.pog import evidence_paths, result_of
from agent.pog.graph import run_question
from agent.pog.state import Entity
from agent.traces import trace_document, write_trace
from loaders.questions import Question, TopicEntity

NodeEvent = Callable[[dict[str, Any]], None]
SAFE_ID = re.compile(r"[^A-Za-z0-9_-]")


def trace_id_for(*parts: str) -> str:
    """A trace id safe as a file name (ids arrive from users and URLs)."""
    return "-".join(SAFE_ID.sub("_", p)[:64] for p in parts if p)


def resolve_turn(state: ChatState, runtime: Runtime[ChatContext]) -> Update:
    resolution = resolve_references(state["message"], state.get("turns") or [])
    return {"resolved": resolution.question, "referent": resolution.referent, "given_topics": resolution.topics}


def answer_turn(state: ChatState, runtime: Runtime[ChatContext]) -> Update:
    thread = str((get_config().get("configurable") or {}).get("thread_id") or "chat")
    number = len(state.get("turns") or []) + 1
    turn = answer_question(runtime.context, state["resolved"], state.get("given_topics") or [],
                           trace_id=trace_id_for(thread, str(number)), on_node=get_stream_writer())
    return {"turns": [{**turn, "message": state["message"], "referent": state.get("referent")}]}


def answer_question(ctx: ChatContext, question: str, topics: list[dict[str, str]], *, trace_id: str | None = None,
                    trace_path: Path | None = None, on_node: NodeEvent | None = None) -> ChatTurn:
    """One question through PoG: the turn record, with the trace written to `trace_path`,
    else into the context's trace folder when it has one. `on_node` hears each PoG node as
    it finishes."""
    pog = ctx.pog
    trace_id = trace_id or trace_id_for("ask", uuid.uuid4().hex[:12])
    if trace_path is None and ctx.trace_dir is not None:
        trace_path = ctx.trace_dir / f"{trace_id}.json"
    entities = [Entity(id=t["id"], name=t.get("name")) for t in topics]
    started = time.perf_counter()
    with pog.llm.track(log=trace_path is not None) as usage:
        state = run_question(pog, question, entities, graph=ctx.pog_graph, on_node=on_node)
    seconds = time.perf_counter() - started
    result = result_of(state)
    if trace_path is not None:
        record = Question(trace_id, question, tuple(TopicEntity(e.id, e.name) for e in entities))
        write_trace(trace_path, trace_document(record, result, usage, seconds, pipeline="pog",
                                               model=pog.llm.model_name, store=pog.store.display_url))
    names = state.get("names") or {}
    return ChatTurn(
        message=question, resolved=question, referent=None,
        topics=[{"id": t.id, "name": t.name or t.id} for t in state.get("topics") or []],
        answers=result.predictions,
        answer_entities=[{"id": e, "name": names.get(e) or e} for e in state.get("answer_entities") or []],
        source=state.get("source"), paths=evidence_paths(state), llm_calls=usage.calls,
        prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens, seconds=round(seconds, 3),
        trace_id=trace_id if trace_path is not None else None)
