"""Reading and presenting reasoning traces (the documents `agent.traces` writes):
a terminal tree, a self-contained HTML page, and the difference between two runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.traces import TRACE_VERSION
from kg_store.errors import InputError

Trace = dict[str, Any]


class TraceError(InputError):
    """A file that is not a trace this version can read."""


def load_trace(path: Path) -> Trace:
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise TraceError(f"no such trace file: {path}") from exc
    except IsADirectoryError as exc:
        raise TraceError(f"{path} is a folder; give one of the trace files in it") from exc
    except OSError as exc:
        raise TraceError(f"cannot read {path}: {exc.strerror}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TraceError(f"{path} is not a trace: not JSON ({exc})") from exc
    if not isinstance(document, dict) or "question" not in document or "version" not in document:
        raise TraceError(f"{path} is not a trace: no version and question")
    if not isinstance(document["version"], int) or not isinstance(document["question"], dict) \
            or not isinstance(document["question"].get("text"), str) \
            or not isinstance(document.get("agent") or {}, dict):
        raise TraceError(f"{path} is not a trace: its version, question or agent part has the wrong shape")
    if document["version"] > TRACE_VERSION:
        raise TraceError(f"{path} is trace version {document['version']}; this kgqa reads up to {TRACE_VERSION}")
    return document


def agent_part(trace: Trace) -> dict[str, Any]:
    return trace.get("agent") or {}


def events(trace: Trace) -> list[dict[str, Any]]:
    return agent_part(trace).get("events") or []


def kept_paths(trace: Trace) -> list[dict[str, Any]]:
    """The evidence paths the answer was given with (PoG traces)."""
    return agent_part(trace).get("paths") or []


def cost(trace: Trace) -> dict[str, float]:
    calls = trace.get("llm_calls") or []
    return {"llm_calls": len(calls), "prompt_tokens": sum(c.get("prompt_tokens", 0) for c in calls),
            "completion_tokens": sum(c.get("completion_tokens", 0) for c in calls),
            "cache_hits": sum(bool(c.get("cached")) for c in calls), "seconds": trace.get("seconds", 0.0)}


def source(trace: Trace) -> str | None:
    return (trace.get("details") or {}).get("source")


def prompt_text(call: dict[str, Any]) -> str:
    return "\n\n".join(f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in call.get("messages") or [])
