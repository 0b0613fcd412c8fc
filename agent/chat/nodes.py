"""The chat graph's two nodes: resolve the follow-up, answer it with PoG
(`agent.asking.answer_question`, as `kgqa ask` and `serve` answer one question)."""

from __future__ import annotations

from langgraph.config import get_config, get_stream_writer
from langgraph.runtime import Runtime

from agent.asking import answer_question, trace_id_for
from agent.chat.context import ChatContext
from agent.chat.references import resolve_references
from agent.chat.state import ChatState, ChatTurn
from agent.events import Update


def resolve_turn(state: ChatState, runtime: Runtime[ChatContext]) -> Update:
    resolution = resolve_references(state["message"], state.get("turns") or [])
    return {"resolved": resolution.question, "referent": resolution.referent, "given_topics": resolution.topics}


def answer_turn(state: ChatState, runtime: Runtime[ChatContext]) -> Update:
    thread = str((get_config().get("configurable") or {}).get("thread_id") or "chat")
    number = len(state.get("turns") or []) + 1
    ctx = runtime.context
    answered = answer_question(ctx.pog, state["resolved"], state.get("given_topics") or [], graph=ctx.pog_graph,
                               trace_dir=ctx.trace_dir, trace_id=trace_id_for(thread, str(number)),
                               on_node=get_stream_writer())
    turn: ChatTurn = {**answered, "message": state["message"], "resolved": state["resolved"],
                      "referent": state.get("referent")}
    return {"turns": [turn]}
