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
from agent.pog.context import PoGContext
from agent.pog.graph import build_graph
from kgqa.settings import Settings


@cache
def settings_context() -> ChatContext:
    from agent.embeddings import Embedder
    from agent.llm.factory import open_llm
    from kg_store import open_store

    settings = Settings()
    resources = ExitStack()
    atexit.register(resources.close)
    store = resources.enter_context(open_store(
        settings.store_url, schema_prefixes=settings.schema_prefixes, read_only=True,
        neo4j_user=settings.neo4j_user, neo4j_password=settings.neo4j_password,
        neo4j_database=settings.neo4j_database))
    llm = resources.enter_context(open_llm(settings))
    pog = PoGContext(store, llm, Embedder.from_settings(settings), settings.pog)
    return ChatContext(pog, trace_dir=settings.trace_dir)


def _pog_context() -> PoGContext:
    return settings_context().pog


chat = build_chat_graph(default_context=settings_context)
pog = build_graph(Settings(), default_context=_pog_context)
