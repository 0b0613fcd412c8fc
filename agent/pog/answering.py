"""Answering (PoG 4.4): the kept paths as evidence (or the LLM's summary of them), the
answer and its sufficiency check, and the last resort when no path sufficed."""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agent.evaluation.metrics import normalize
from agent.pipelines.base import read_answers
from agent.pog.context import PoGContext
from agent.pog.paths import path_text
from agent.pog.state import PathCandidate, PoGState, Source
from agent.pog.tracing import Update, traced
from prompts import render

# A name the LLM writes matches an entity when their normalised forms are equal, or one
# contains the other and the shorter has at least this many characters ("Forrest Gump"
# for "Forrest Gump (film)"; never "a" for "Casablanca").
MIN_CONTAINED = 4


class JudgedAnswer(BaseModel):
    sufficient: bool = False
    answers: list[str] = Field(default_factory=list)


@traced
def summarise_paths(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """The evidence the answer prompt reads: the kept paths, numbered; with
    `summary="llm"`, PoG's summary of them by the LLM as well."""
    ctx = runtime.context
    listing = "\n".join(f"Path {i + 1}: {c.text}" for i, c in enumerate(state.get("kept") or []))
    if ctx.config.summary != "llm" or not listing:
        return {"evidence": listing}
    reply = ctx.llm.chat([{"role": "user", "content": render(
        "pog_summarise", question=state["question"], indicator=state.get("indicator") or "",
        split_questions="\n".join(state.get("split_questions") or []) or "(none)", paths=listing)}],
        temperature=0.0, max_tokens=256)
    return {"evidence": f"{listing}\n\nSummary of these paths:\n{reply.text.strip()}"}


@traced
def answer_from_paths(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """The LLM reads the evidence and names the answer. The paths suffice when a name it
    gives is an entity at the end of a kept path whose score is within `answer_margin`
    of the best; the answers are then that entity first and the rest of the path's ends.
    When it names none, the best path still suffices if the path memory trusts it (a
    small model often names the film's director when asked for the film). With
    `sufficiency="llm"` the LLM's own {Yes}/{No} must say so too."""
    ctx, config = runtime.context, runtime.context.config
    kept = state.get("kept") or []
    if not kept:
        return {"sufficient": False}
    names = state.get("names") or {}
    eligible = [c for c in kept if c.score >= kept[0].score - config.answer_margin]
    known = [names.get(e) or "" for c in kept for e in c.ends]
    if config.sufficiency == "llm":
        reply = ctx.llm.chat([{"role": "user", "content": render(
            "pog_answer_judged", paths=state.get("evidence") or "", question=state["question"])}],
            schema=JudgedAnswer, temperature=0.0, max_tokens=config.answer_max_tokens)
        judged: JudgedAnswer = reply.parsed or JudgedAnswer()
        said = [a.strip() for a in judged.answers if isinstance(a, str) and a.strip()]
        if not judged.sufficient:
            return {"sufficient": False, "llm_answers": said}
    else:
        reply = ctx.llm.chat([{"role": "user", "content": render(
            "pog_answer", paths=state.get("evidence") or "", question=state["question"])}],
            temperature=0.0, max_tokens=config.answer_max_tokens)
        said = read_answers(reply.text, known)
    source: Source = "kg+llm" if state.get("phase") == "supplement" else "kg"
    for answer in said:
        for candidate in eligible:
            matched = [e for e in candidate.ends if names_match(answer, names.get(e))]
            if matched:
                return _answer(candidate, matched, names, source) | {"sufficient": True, "llm_answers": said}
    if config.sufficiency == "llm" and said:  # a strong model read a value off the paths (a date, a number)
        return {"sufficient": True, "source": source, "answers": said, "answer_entities": [], "answer_path": kept[0],
                "llm_answers": said}
    best = kept[0]
    named = [e for e in best.ends if names.get(e)]
    if named and best.score_parts.get("memory", 0.0) >= config.memory_confidence:
        return _answer(best, named[:1], names, source) | {"sufficient": True, "llm_answers": said}
    for answer in said[:1]:  # an entity inside a path: the path up to it answers (PoG's answers need not end paths)
        for candidate in eligible:
            for hop in range(len(candidate.hops) - 1):
                matched = [e for e in candidate.hops[hop] if names_match(answer, names.get(e))]
                if matched:
                    prefix = truncate(candidate, hop + 1, names, config.names_per_set)
                    return _answer(prefix, matched, names, source) | {"sufficient": True, "llm_answers": said}
    return {"sufficient": False, "llm_answers": said}


def truncate(path: PathCandidate, steps: int, names: dict[str, str | None], names_per_set: int) -> PathCandidate:
    """The first `steps` steps of a path, as a path of its own."""
    hops = path.hops[:steps]
    return path.model_copy(update={
        "steps": path.steps[:steps], "hops": hops, "joins": {}, "evidence": [seq[: steps + 1] for seq in path.evidence],
        "text": path_text(path.seed, path.steps[:steps], hops, names, names_per_set), "depth": steps})


def names_match(said: str, name: str | None) -> bool:
    if not name:
        return False
    a, b = normalize(said), normalize(name)
    if not a or not b:
        return False
    shorter, longer = sorted((a, b), key=len)
    return a == b or (len(shorter) >= MIN_CONTAINED and f" {shorter} " in f" {longer} ")


def _answer(path: PathCandidate, first: list[str], names: dict[str, str | None], source: Source) -> Update:
    ends = first + [e for e in path.ends if e not in first and names.get(e)]
    return {"source": source, "answer_entities": ends, "answers": [names.get(e) or e for e in ends],
            "answer_path": path}


@traced
def finalise(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """When no path sufficed: the end entities of the best phase-1 path that ends at
    named entities (the graph's answer); with no path at all, the LLM's own knowledge,
    marked as such."""
    if state.get("sufficient"):
        return {}
    names = state.get("names") or {}
    for path in [*(state.get("topic_kept") or []), *(state.get("kept") or [])]:
        named = [e for e in path.ends if names.get(e)]
        if named:
            return _answer(path, named[:1], names, "kg")
    ctx = runtime.context
    reply = ctx.llm.chat([{"role": "user", "content": render("answer_io", question=state["question"])}],
                         temperature=0.0, max_tokens=64)
    return {"source": "llm", "answer_entities": [], "answers": read_answers(reply.text), "answer_path": None}
