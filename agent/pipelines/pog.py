"""`pog`: the Paths-over-Graph agent (agent/pog) as a pipeline: questions in, answers,
evidence paths and a trace out."""

from __future__ import annotations

from agent.answer_text import PipelineResult
from agent.pog.context import PoGContext
from agent.pog.graph import build_graph, run_question
from agent.pog.state import ANSWER_REASONS, Entity, PathCandidate, PoGState
from kg_store import UNNAMED
from loaders.questions import Question, question_group

ENDS_SHOWN = 20  # end entities listed per evidence path


class PoGPipeline:
    name = "pog"

    def __init__(self, context: PoGContext) -> None:
        """Over a context as `agent.assembly.context.pog_context` builds it from settings."""
        self.context = context
        self.graph = build_graph(context.config)

    def run(self, question: Question) -> PoGState:
        topics = [Entity(id=t.id, name=t.name) for t in question.topic_entities]
        return run_question(self.context, question.text, topics, question_id=question.id,
                            question_group=question_group(question), graph=self.graph)

    def answer(self, question: Question) -> PipelineResult:
        return result_of(self.run(question))


def evidence_paths(state: PoGState) -> list[dict]:
    """The path the answer came from first, then the other kept paths: text, score,
    relations, and entities with names and ids."""
    names = state.get("names") or {}
    answer_path = state.get("answer_path")
    paths: list[PathCandidate] = [answer_path] if answer_path else []
    paths += [c for c in state.get("kept") or [] if not answer_path or c.key != answer_path.key]

    def entity(e: str) -> dict:
        return {"id": e, "name": names.get(e) or UNNAMED}

    return [{"text": p.text, "score": p.score, "phase": p.phase, "answer": p is answer_path,
             "start": entity(p.seed), "relations": [list(s) for s in p.steps],
             "ends": [entity(e) for e in p.ends[:ENDS_SHOWN]], "ends_total": len(p.ends),
             "evidence": [[entity(e) for e in seq] for seq in p.evidence]} for p in paths]


def decided_by(state: PoGState) -> str | None:
    """Who decided the answer: "model", "memory", "structure" or "fallback" (no path was
    judged sufficient); None with no answer."""
    reason = state.get("answer_reason")
    return ANSWER_REASONS[reason][0] if reason else None


def answer_why(state: PoGState) -> str | None:
    """The answer's reason, in a sentence."""
    reason = state.get("answer_reason")
    return ANSWER_REASONS[reason][1] if reason else None


def result_of(state: PoGState) -> PipelineResult:
    names = state.get("names") or {}
    shown = {c.key: c for c in [*(state.get("topic_kept") or []), *(state.get("kept") or [])]}
    retrieved = [names.get(e) or e for c in shown.values() for hop in c.hops for e in hop]
    answer_path = state.get("answer_path")
    return PipelineResult(
        predictions=state.get("answers") or [],
        raw_output="\n".join(state.get("llm_answers") or []),
        retrieved=retrieved,
        details={"source": state.get("source"), "sufficient": bool(state.get("sufficient")),
                 "answer_reason": state.get("answer_reason"), "decided_by": decided_by(state),
                 "phase": state.get("phase"), "depth": state.get("depth"),
                 "predicted_depth": state.get("predicted_depth"), "depth_source": state.get("depth_source"),
                 "answer_path": answer_path.text[:300] if answer_path else None,
                 "unheld_topics": [t.name or t.id for t in state.get("unheld_topics") or []]},
        trace={"events": state.get("events") or [], "topics": [t.model_dump() for t in state.get("topics") or []],
               "link_candidates": {k: [e.model_dump() for e in v] for k, v in (state.get("link_candidates") or {}).items()},
               "indicator": state.get("indicator"), "split_questions": state.get("split_questions"),
               "path_prior": [p.model_dump() for p in state.get("path_prior") or []],
               "subgraph": state.get("subgraph"), "paths": evidence_paths(state), "names": names},
    )
