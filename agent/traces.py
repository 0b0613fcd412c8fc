"""A question run's trace: one versioned JSON document with the question, every LLM call
(prompt, reply, tokens, seconds, cache hit), what the pipeline retrieved, the agent's
node events, and the answer. `kgqa ask --trace` and `kgqa eval` write the same shape,
always before any scoring, so a trace never holds gold answers."""

from __future__ import annotations

import json
from pathlib import Path

from agent.llm.base import Usage
from agent.pipelines.base import PipelineResult
from loaders.questions import Question

TRACE_VERSION = 1


def trace_document(question: Question, result: PipelineResult, usage: Usage, seconds: float, *, pipeline: str,
                   model: str, store: str, error: str | None = None) -> dict:
    return {
        "version": TRACE_VERSION, "kind": "pipeline-run", "pipeline": pipeline, "model": model, "store": store,
        "question": {"id": question.id, "text": question.text,
                     "topic_entities": [{"id": t.id, "name": t.name} for t in question.topic_entities]},
        "seconds": round(seconds, 3), "llm_calls": usage.log, "predictions": result.predictions,
        "raw_output": result.raw_output, "retrieved": result.retrieved, "details": result.details,
        "agent": result.trace, "error": error,
    }


def write_trace(path: Path, document: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")
    return path
