"""One event per node run in the state's `events` (name, start, seconds, what it
changed), so the final state of any of our graphs carries the trace of how its answer
came about."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel

Update = dict[str, Any]
Node = Callable[[Any, Runtime[Any]], Update]
# How many ranked items (paths, triples) an event records: the trace shows the head of
# every ranking, not thousands of candidates.
RANKED_PER_EVENT = 20


def traced(node: Node) -> Node:
    @wraps(node)
    def run(state: Any, runtime: Runtime[Any]) -> Update:
        started, wall = time.perf_counter(), time.time()
        update = node(state, runtime)
        event = {"node": node.__name__, "started": round(wall, 3), "seconds": round(time.perf_counter() - started, 4),
                 "update": {k: brief(v) for k, v in update.items() if k not in ("events", "names")}}
        return {**update, "events": [*update.get("events", []), event]}

    return run


def brief(value: Any) -> Any:
    """A JSON-friendly, bounded rendering of a state value."""
    if isinstance(value, list) and value and hasattr(value[0], "text") and hasattr(value[0], "score"):
        shown = [_ranked(item) for item in value[:RANKED_PER_EVENT]]
        return shown + ([f"... {len(value) - RANKED_PER_EVENT} more"] if len(value) > RANKED_PER_EVENT else [])
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, dict):
        return {k: brief(v) for k, v in list(value.items())[:50]}
    if isinstance(value, list):
        return [brief(v) for v in value[:50]]
    return value


def _ranked(item: Any) -> dict[str, Any]:
    """A ranked item (a path, a triple) in an event: its text, score and how it was scored."""
    shown = {"text": item.text, "score": item.score}
    for detail in ("score_parts", "phase", "depth", "pooled", "seed", "steps"):
        if getattr(item, detail, None) is not None:
            shown[detail] = getattr(item, detail)
    if getattr(item, "evidence", None):  # one concrete node sequence: what a trace graph draws
        shown["evidence"] = item.evidence[0]
    return shown


def with_default_context(node: Node, factory: Callable[[], Any]) -> Node:
    """`node`, given `factory()` as its context when a run passes none (LangGraph's own
    server and Studio pass no Python objects)."""
    @wraps(node)
    def run(state: Any, runtime: Runtime[Any]) -> Update:
        return node(state, runtime if runtime.context is not None else runtime.override(context=factory()))

    return run
