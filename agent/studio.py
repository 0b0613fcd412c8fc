"""The graphs `langgraph.json` names, for LangGraph's own tools (`langgraph dev`,
LangGraph Studio). Those tools pass no Python objects as a run's context, so these
graphs open the store, the model and the embeddings from the settings (KGQA_* variables,
.env) on their first run and keep them open until the process exits. The server keeps
threads with its own checkpointer."""

from __future__ import annotations

import atexit
from contextlib import ExitStack
from functools import cache

from agent.chat.context import ChatContext
from agent.chat.graph import build_chat_graph
from agent.factory import open_chat_context
from agent.pog.context import PoGContext
from agent.pog.graph import build_graph
from agent.settings import Settings


@cache
def settings_context() -> ChatContext:
    resources = ExitStack()
    atexit.register(resources.close)
    return resources.enter_context(open_chat_context(Settings()))


def _pog_context() -> PoGContext:
    return settings_context().pog


chat = build_chat_graph(default_context=settings_context)
pog = build_graph(Settings(), default_context=_pog_context)
