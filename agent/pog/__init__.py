"""Paths-over-Graph (PoG) as a LangGraph state machine: `build_graph` wires the nodes.

Exports load on first use: `kgqa.settings` imports `agent.pog.config`, and every
command line start should not pay for langgraph and the nodes."""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {"PoGConfig": "agent.pog.config", "PoGContext": "agent.pog.context", "build_graph": "agent.pog.graph",
            "run_question": "agent.pog.graph"}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'agent.pog' has no attribute {name!r}")
