"""One event per node run in the state's `events` (name, start, seconds, what it
changed), so the final state carries the trace of how the answer came about."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel

from agent.pog.context import PoGContext
from agent.pog.state import PathCandidate, PoGState

Update = dict[str, Any]
Node = Callable[[PoGState, Runtime[PoGContext]], Update]
# How many paths of a list an event records (with text and score): the trace shows the
# head of every ranking, not thousands of candidates.
PATHS_PER_EVENT = 20


def traced(node: Node) -> Node:
    @wraps(node)
    def run(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
        started, wall = time.perf_counter(), time.time()
        update = node(state, runtime)
        event = {"node": node.__name__, "started": round(wall, 3), "seconds": round(time.perf_counter() - started, 4),
                 "update": {k: brief(v) for k, v in update.items() if k not in ("events", "names")}}
        return {**update, "events": [*update.get("events", []), event]}

    return run


def brief(value: Any) -> Any:
    """A JSON-friendly, bounded rendering of a state value."""
    if isinstance(value, list) and value and isinstance(value[0], PathCandidate):
        shown = [{"text": c.text, "score": c.score, "parts": c.score_parts, "phase": c.phase, "depth": c.depth}
                 for c in value[:PATHS_PER_EVENT]]
        return shown + ([f"... {len(value) - PATHS_PER_EVENT} more"] if len(value) > PATHS_PER_EVENT else [])
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, dict):
        return {k: brief(v) for k, v in list(value.items())[:50]}
    if isinstance(value, list):
        return [brief(v) for v in value[:50]]
    return value
