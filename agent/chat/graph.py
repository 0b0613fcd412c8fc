"""The chat flow: each message is read against the conversation so far, then answered
by the PoG graph; the thread's turns persist in the checkpointer.

    START ─► resolve_turn ─► answer_turn ─► END
             (he / it / them      (PoG, its nodes streamed
              → an earlier         as custom events, a trace
              turn's entity)       per turn)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.graph import END, START, StateGraph

from agent.chat.context import ChatContext
from agent.chat.nodes import answer_turn, resolve_turn
from agent.chat.state import ChatState
from agent.events import with_default_context


def build_chat_graph(*, checkpointer: Any = None, default_context: Callable[[], ChatContext] | None = None,
                     context_schema: type = ChatContext, input_schema: type | None = None,
                     output_schema: type | None = None):
    """The compiled chat graph; invoke or stream it with `context=ChatContext(...)` and a
    `thread_id` in the config. Pass a checkpointer (e.g. SQLite) to keep threads, and
    `default_context` for runs that bring no context (LangGraph's server). The schemas
    default to ChatContext and the whole state; LangGraph's server declares its own
    (`kgqa.studio`)."""
    graph = StateGraph(ChatState, context_schema=context_schema, input_schema=input_schema, output_schema=output_schema)
    for name, node in (("resolve_turn", resolve_turn), ("answer_turn", answer_turn)):
        graph.add_node(name, node if default_context is None else with_default_context(node, default_context))
    graph.add_edge(START, "resolve_turn")
    graph.add_edge("resolve_turn", "answer_turn")
    graph.add_edge("answer_turn", END)
    return graph.compile(checkpointer=checkpointer)
