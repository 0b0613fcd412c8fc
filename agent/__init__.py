"""The agents over the store protocol: the Paths-over-Graph LangGraph state machine
(`agent.pog`), the pipelines `kgqa eval` runs, and their model clients.

    from agent import build_graph, PoGContext
    graph = build_graph(settings)                       # the compiled StateGraph
    state = graph.invoke({"question": "who directed Big?"}, context=PoGContext(store, llm, embedder, settings.pog))

Exports load on first use (langgraph and torch are not needed to import the package).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {"build_graph": "agent.pog.graph", "run_question": "agent.pog.graph", "PoGContext": "agent.pog.context",
            "PoGConfig": "agent.pog.config"}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'agent' has no attribute {name!r}")
