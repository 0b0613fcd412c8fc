"""Question analysis (PoG 4.1): topic entities, split questions, the thinking indicator
and the predicted depth, in one LLM call; the path memory's prior when there is one."""

from __future__ import annotations

import re

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agent.evaluation.metrics import normalize
from agent.pog.context import PoGContext
from agent.pog.memory import mask_question
from agent.pog.state import Entity, PoGState
from agent.pog.tracing import Update, traced
from prompts import render

_BRACKETED = re.compile(r"\[([^\[\]]+)\]")
MAX_MENTIONS = 5


class Analysis(BaseModel):
    topic_entities: list[str] = Field(default_factory=list)
    split_questions: list[str] = Field(default_factory=list)
    indicator: str = ""
    depth: int | None = None


@traced
def analyse_question(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    ctx, config = runtime.context, runtime.context.config
    question = state["question"]
    given = [t for t in state.get("given_topics") or [] if t.id]
    known = "Topic entities: " + ", ".join(t.name or t.id for t in given) if given else ""
    reply = ctx.llm.chat([{"role": "user", "content": render("pog_analyse", question=question, known_topics=known)}],
                         schema=Analysis, temperature=config.explore_temperature, max_tokens=200)
    analysis: Analysis = reply.parsed or Analysis()
    topics, candidates = resolve_topics(ctx, question, given, analysis.topic_entities)
    indicator = analysis.indicator.strip() or question
    # PoG orders the topic entities by where the indicator mentions them.
    topics.sort(key=lambda t: _position(indicator, t.name or t.id))

    prior = []
    if ctx.memory is not None and topics:
        masked = mask_question(question, [t.name or t.id for t in topics])
        edges, _ = ctx.neighbours.neighbors([t.id for t in topics])
        first_steps = {(e.relation, e.direction == "out") for es in edges.values() for e in es}
        prior = ctx.memory.prior(ctx.embedder.encode([masked])[0], exclude_id=state.get("question_id"),
                                 k=config.memory_k, first_steps=first_steps)
    depth, depth_source = predict_depth(config.max_depth, analysis, indicator, prior, config.memory_confidence)
    return {"topics": topics, "link_candidates": candidates, "indicator": indicator,
            "split_questions": [s for s in analysis.split_questions if isinstance(s, str)][:5],
            "path_prior": prior[:5], "predicted_depth": depth, "depth_source": depth_source, "depth": depth,
            "phase": "topic"}


def predict_depth(max_depth: int, analysis: Analysis, indicator: str, prior: list, confidence: float) -> tuple[int, str]:
    """The memory's depth when it is confident; else the LLM's number; else the
    indicator's relation count (`a -> r -> b` has one); else 1."""
    if prior and prior[0].weight >= confidence and 1 <= prior[0].depth <= max_depth:
        return prior[0].depth, "memory"
    if analysis.depth is not None and 1 <= analysis.depth <= max_depth:
        return analysis.depth, "llm"
    arrows = indicator.count("->")
    if arrows:
        return min(max(arrows // 2, 1), max_depth), "indicator"
    return 1, "default"


def _position(text: str, name: str) -> int:
    found = normalize(text).find(normalize(name))
    return found if found >= 0 else len(text)


def resolve_topics(ctx: PoGContext, question: str, given: list[Entity],
                   mentions: list[str]) -> tuple[list[Entity], dict[str, list[Entity]]]:
    """Given topic entities that the store knows are used as they are; the others (names
    from RoG files, say) are linked by name, and so are the LLM's mentions when none were
    given. Bracketed names in the question count as mentions too."""
    if given:
        edges, _ = ctx.neighbours.neighbors([t.id for t in given])
        known = [t for t in given if edges.get(t.id)]
        unknown = [t.name or t.id for t in given if not edges.get(t.id)]
        if not unknown:
            return known, {}
        linked, candidates = link_entities(ctx, unknown)
        return _unique(known + linked), candidates
    wanted = [m for m in (*_BRACKETED.findall(question), *mentions) if isinstance(m, str) and m.strip()]
    topics, candidates = link_entities(ctx, wanted)
    if not topics:  # the model named nothing the store knows: try the question's capitalised names
        topics, candidates = link_entities(ctx, capitalised_spans(question))
    return topics, candidates


_QUESTION_WORDS = {"who", "what", "which", "where", "when", "why", "how", "whose", "whom", "name", "list", "is", "are",
                   "was", "were", "did", "does", "do", "in", "the", "a", "an"}
_SPAN = re.compile(r"[A-Z0-9][\w'.&!:-]*(?:\s+(?:(?:of|the|and|de|la|von|van|du|in)\s+)*[A-Z0-9][\w'.&!:-]*)*")


def capitalised_spans(question: str) -> list[str]:
    """Runs of capitalised words ("Forrest Gump", "Lord of the Rings"), longest first,
    without a leading question word ("Who directed ..." is not a name)."""
    spans = []
    for match in _SPAN.finditer(question):
        words = match.group(0).split()
        while words and words[0].lower() in _QUESTION_WORDS:
            words = words[1:]
        if words and (len(words) > 1 or len(words[0]) > 2):
            spans.append(" ".join(words).rstrip("?.!,:"))
    return sorted(dict.fromkeys(spans), key=len, reverse=True)


def link_entities(ctx: PoGContext, mentions: list[str]) -> tuple[list[Entity], dict[str, list[Entity]]]:
    """Each mention to the store's best match: name search proposes (exact, normalised,
    prefix, substring), and the match kind plus the embedding similarity of mention and
    name decides. Every candidate is kept for the trace."""
    chosen: list[Entity] = []
    candidates: dict[str, list[Entity]] = {}
    for mention in list(dict.fromkeys(m.strip() for m in mentions))[:MAX_MENTIONS]:
        matches = ctx.store.search_entities(mention, limit=10)
        if not matches:
            continue
        candidates[mention] = [Entity(id=m.id, name=m.name) for m in matches]
        vectors = ctx.embedder.encode([mention, *(m.name for m in matches)])
        similarity = vectors[1:] @ vectors[0]
        best = max(range(len(matches)), key=lambda i: (matches[i].score + float(similarity[i]), -i))
        chosen.append(Entity(id=matches[best].id, name=matches[best].name))
    return _unique(chosen), candidates


def _unique(entities: list[Entity]) -> list[Entity]:
    return list({e.id: e for e in entities}.values())
