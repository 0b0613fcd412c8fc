"""A question run's trace: one versioned JSON document with the question, every LLM call
(prompt, reply, tokens, seconds, cache hit), what the pipeline retrieved, the agent's
node events, and the answer. `kgqa ask --trace` and `kgqa eval` write the same shape,
always before any scoring, so a trace never holds gold answers."""

from __future__ import annotations

import json
from pathlib import Path

from agent.answer_text import PipelineResult, names_match, names_only_the_question
from agent.llm.base import Usage
from agent.pog.state import ANSWER_REASONS
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


def answer_why(document: dict) -> str | None:
    """The rule that gave a PoG answer, in a sentence (`details.answer_reason`); None for
    other pipelines and for traces written before answers recorded their reason."""
    details = document.get("details")
    reason = details.get("answer_reason") if isinstance(details, dict) else None
    return ANSWER_REASONS[reason][1] if isinstance(reason, str) and reason in ANSWER_REASONS else None


# Nodes that may change the answer after the model gave its own, and how a reader names them.
_OVERRULERS = {"integrate_answers_fi": "GraphRAG-FI", "integrate_answers": "GraphRAG-FI",
               "apply_superlative": "constraint"}


def answer_verdict(document: dict) -> dict | None:
    """Whether the final answer is the model's own, read from a trace's node events:
    `model` (the names the model gave when it read the evidence), `final`, `kept` (the
    final answers that are among its names) and `status`:
    "own" (every final answer is one it gave), "extended" (its answer stands, the path it
    named adds more ends), "overruled" (none of its names survived) or "filled" (it
    named nothing). For the last two, `by` names what decided: "memory" (the path
    memory's trusted path), "structure" (the best-scoring or first-found path's ends),
    "GraphRAG-FI" (answer integration) or "constraint"; `why` says it in a sentence.
    None for a trace without such events (llm-only, cosine-triples, an error)."""
    said, steps = None, []
    for event in (document.get("agent") or {}).get("events") or []:
        node, update = event.get("node"), event.get("update") or {}
        if node == "answer_from_paths" and "llm_answers" in update:  # PoG: the model read the paths
            said, steps = list(update["llm_answers"] or []), ([(node, update)] if "answers" in update else [])
        elif node == "answer" and "answers" in update:  # triples: the model read the facts
            said, steps = list(update["answers"] or []), []
        elif node == "finalise" and update.get("source") == "llm":  # no path at all: its own knowledge
            said, steps = list(update.get("answers") or []), []
        elif "answers" in update and said is not None:
            steps.append((node, update))
        elif node == "finalise" and "answers" in update:  # PoG found paths but the model never spoke
            said, steps = [], [(node, update)]
    if said is None:
        return None
    final = list(document.get("predictions") or [])
    kept = [answer for answer in final if any(names_match(answer, name) for name in said)]
    verdict = {"model": said, "final": final, "kept": kept}
    if not final:
        return {**verdict, "status": "none", "by": None, "why": "no answer was given"}
    if kept:
        return {**verdict, "status": "own" if len(kept) == len(final) else "extended", "by": None, "why": ""}
    node, update = next(((n, u) for n, u in steps if not any(names_match(a, s) for a in u.get("answers") or []
                                                             for s in said)), steps[-1] if steps else (None, {}))
    by, why = _decider(node, update, said, document)
    return {**verdict, "status": "overruled" if said else "filled", "by": by, "why": why}


def _decider(node: str | None, update: dict, said: list[str], document: dict) -> tuple[str, str]:
    if node == "answer_from_paths":
        path = update.get("answer_path") or {}
        memory = float((path.get("score_parts") or {}).get("memory") or 0.0)
        if memory > 0:
            return "memory", (f"the path memory trusts the best path (memory score {memory:.2f}), so its end "
                              "entities answer")
        if names_only_the_question(said, document.get("question", {}).get("text") or ""):
            return "structure", ("the model named only what the question names, so the best-scoring path's end "
                                 "entities answer")
        return "structure", "the best-scoring path's end entities answer"
    if node == "finalise":
        return "structure", "no path was judged sufficient, so the end entities of the best path found answer"
    if node in _OVERRULERS:
        return _OVERRULERS[node], f"{node} replaced the answer"
    return node or "unknown", "the answer changed after the model gave it"


def depth_verdict(document: dict) -> dict | None:
    """Where PoG's search started and who said so: `depth`, `source` ("memory",
    "structure", "llm", "indicator", "default"), and `model` (the depth the model itself
    gave in its analysis, when its reply is readable). `overruled` is true when the
    memory or the structure set a depth other than the model's."""
    for event in (document.get("agent") or {}).get("events") or []:
        update = event.get("update") or {}
        if event.get("node") == "analyse_question" and "depth_source" in update:
            model = update["model_depth"] if "model_depth" in update else _analysed_depth(document)
            source = update.get("depth_source")
            depth = update.get("predicted_depth")
            return {"depth": depth, "source": source, "model": model,
                    "overruled": source in ("memory", "structure") and model is not None and model != depth}
    return None


def _analysed_depth(document: dict) -> int | None:
    """The depth in the model's analysis reply (the first call whose reply is a JSON
    object with a `depth`): for traces written before analyse_question recorded
    `model_depth` (those in results/2026-11-2x)."""
    for call in document.get("llm_calls") or []:
        reply = str(call.get("reply") or "")
        start, end = reply.find("{"), reply.rfind("}")
        if start < 0 or end < start:
            continue
        try:
            parsed = json.loads(reply[start:end + 1])
        except ValueError:
            continue
        if isinstance(parsed, dict) and "depth" in parsed and "indicator" in parsed:
            depth = parsed["depth"]
            return depth if isinstance(depth, int) and not isinstance(depth, bool) else None
    return None
