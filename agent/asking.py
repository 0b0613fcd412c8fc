"""One question through PoG for a person rather than a benchmark: the answer with its
evidence paths, its cost and a trace. `kgqa ask`, `kgqa serve`'s /api/ask and every chat
turn answer through `answer_question`; it runs the graph by `agent.pog.graph.run_question`,
as `kgqa eval` does."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

from agent.pipelines.pog import answer_why, decided_by, evidence_paths, result_of
from agent.pog.context import PoGContext
from agent.pog.graph import NodeEvent, run_question
from agent.pog.state import Entity
from agent.traces import trace_document, write_trace
from loaders.questions import Question, TopicEntity

SAFE_ID = re.compile(r"[^A-Za-z0-9_-]")


class Answered(TypedDict):
    question: str
    topics: list[dict[str, str]]  # {id, name}
    unheld_topics: list[dict[str, str]]  # given topics the graph holds no fact about: left out of the answer
    answers: list[str]
    answer_entities: list[dict[str, str]]  # {id, name}: what a later "he" / "it" can mean
    source: str | None
    sufficient: bool  # whether the evidence was judged sufficient (else the answer is a fallback)
    answer_reason: str | None  # the rule that gave the answer (`agent.pog.state.AnswerReason`)
    decided_by: str | None  # model, memory, structure or fallback
    why: str | None  # the reason, in a sentence
    paths: list[dict[str, Any]]  # the evidence paths, as `kgqa ask --json` gives them
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    trace_id: str | None


def _named(entities: Sequence[Entity] | None) -> list[dict[str, str]]:
    """Entities as {id, name}, the id standing in for a missing name."""
    return [{"id": e.id, "name": e.name or e.id} for e in entities or []]


def trace_id_for(*parts: str) -> str:
    """A trace id safe as a file name (ids arrive from users and URLs)."""
    return "-".join(SAFE_ID.sub("_", p)[:64] for p in parts if p)


def answer_question(pog: PoGContext, question: str, topics: Sequence[dict[str, str]] = (), *, graph: Any = None,
                    trace_dir: Path | None = None, trace_id: str | None = None, trace_path: Path | None = None,
                    on_node: NodeEvent | None = None) -> Answered:
    """The answer to `question` (topic entities given as {id, name} when known), with the
    trace written to `trace_path`, else into `trace_dir` when given. `graph`: PoG compiled
    once for many questions (default: built for this one). `on_node` hears each node as
    it ends."""
    trace_id = trace_id or trace_id_for("ask", uuid.uuid4().hex[:12])
    if trace_path is None and trace_dir is not None:
        trace_path = trace_dir / f"{trace_id}.json"
    entities = [Entity(id=t["id"], name=t.get("name")) for t in topics]
    started = time.perf_counter()
    with pog.llm.track(log=trace_path is not None) as usage:
        state = run_question(pog, question, entities, graph=graph, on_node=on_node)
    seconds = time.perf_counter() - started
    result = result_of(state)
    if trace_path is not None:
        record = Question(trace_id, question, tuple(TopicEntity(e.id, e.name) for e in entities))
        write_trace(trace_path, trace_document(record, result, usage, seconds, pipeline="pog",
                                               model=pog.llm.model_name, store=pog.store.display_url))
    names = state.get("names") or {}
    return Answered(
        question=question, topics=_named(state.get("topics")), unheld_topics=_named(state.get("unheld_topics")),
        answers=result.predictions,
        answer_entities=[{"id": e, "name": names.get(e) or e} for e in state.get("answer_entities") or []],
        source=state.get("source"), sufficient=bool(state.get("sufficient")),
        answer_reason=state.get("answer_reason"), decided_by=decided_by(state), why=answer_why(state),
        paths=evidence_paths(state), llm_calls=usage.calls,
        prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens, seconds=round(seconds, 3),
        trace_id=trace_id if trace_path is not None else None)
