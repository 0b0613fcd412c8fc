"""Superlative and comparative constraints ("the latest", "the earliest", "the largest"):
the answer's candidates ordered by a value the graph holds about each of them.

PoG's answer step asks the model to apply such constraints; the small model does not
(CWQ dev: "which of JFK's brothers held the latest governmental position" answered with
the first brother listed). The values are read, not guessed: each candidate's literal
attributes (dates, numbers) and the names of its neighbours that are dates or numbers
(MetaQA's release years are entities), directly or through an unnamed CVT node (Freebase
keeps a position's dates on the CVT). Of the relations that give values to at least two
candidates, the one whose name is nearest the question decides.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langgraph.runtime import Runtime

from agent.events import Update, traced
from agent.pog.context import PoGContext
from agent.pog.memory import masked_question
from agent.pog.state import PoGState
from kg_store.ids import relation_words
from kg_store.model import is_value_node

# Cue words and whether the largest value wins.
_CUES: list[tuple[re.Pattern[str], bool]] = [
    (re.compile(r"\b(latest|last|most recent|newest|youngest|largest|biggest|highest|most|longest|greatest|"
                r"tallest|later|larger|bigger|higher|more)\b"), True),
    (re.compile(r"\b(earliest|first|oldest|smallest|lowest|least|shortest|fewest|earlier|smaller|lower|less)\b"), False),
]
_NUMBER = re.compile(r"^-?\d{1,4}(?:-\d{2}(?:-\d{2})?)?$|^-?\d+(?:\.\d+)?$")


def superlative(question: str) -> bool | None:
    """True when the question wants the largest value, False the smallest, None neither.
    Pass the question with its topic names masked ("The Last Supper" is no cue)."""
    lowered = question.lower()
    found = [(m.start(), wants_max) for pattern, wants_max in _CUES for m in [pattern.search(lowered)] if m]
    return min(found)[1] if found else None


def as_value(text: str) -> float | None:
    """A date (1965, 1965-01-03) or number as a float that orders like it; None otherwise."""
    text = text.strip()
    if not _NUMBER.match(text):
        return None
    if re.match(r"^-?\d{1,4}-\d{2}", text):
        year, month, *day = text.lstrip("-").split("-")
        sign = -1 if text.startswith("-") else 1
        return sign * int(year) + int(month) / 13 + (int(day[0]) / 400 if day else 0)
    return float(text)


def candidate_values(ctx: PoGContext, candidates: Sequence[str]) -> dict[str, dict[str, float]]:
    """relation -> candidate -> value, from literal attributes and from date- or
    number-named neighbours (through one unnamed node at most)."""
    values: dict[str, dict[str, float]] = {}
    candidates = [c for c in candidates if not is_value_node(c)]  # a literal answer has no attributes
    for entity, attributes in ctx.store.attributes(candidates).items():
        for relation, text in attributes:
            value = as_value(text)
            if value is not None:
                values.setdefault(relation, {}).setdefault(entity, value)
    edges, _ = ctx.neighbours.neighbors(list(candidates))
    unnamed = {e.neighbor for es in edges.values() for e in es if e.neighbor_name is None}
    cvt_edges, _ = ctx.neighbours.neighbors(sorted(unnamed)) if unnamed else ({}, set())
    for entity in candidates:
        for edge in edges.get(entity, ()):
            reached = [(edge.relation, edge.neighbor_name)]
            if edge.neighbor_name is None:
                reached = [(f"{edge.relation}./{e.relation}", e.neighbor_name) for e in cvt_edges.get(edge.neighbor, ())]
            for relation, name in reached:
                value = as_value(name or "")
                if value is not None:
                    values.setdefault(relation, {}).setdefault(entity, value)
    return values


@traced
def apply_superlative(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """With a superlative or comparative in the question and several answers, the answers
    ordered by the value the best-matching relation gives them (those without one last)."""
    wants_max = superlative(masked_question(state))
    entities = state.get("answer_entities") or []
    if wants_max is None or len(entities) < 2:
        return {}
    ctx = runtime.context
    values = {r: v for r, v in candidate_values(ctx, entities).items() if len(v) >= 2 and len(set(v.values())) > 1}
    if not values:
        return {}
    relations = list(values)
    texts = [" ".join(relation_words(part) for part in r.split("./")) for r in relations]
    vectors = ctx.embedder.encode([state["question"], *texts])
    relation = relations[int((vectors[1:] @ vectors[0]).argmax())]
    by = values[relation]
    ordered = sorted(entities, key=lambda e: (e not in by, -by[e] if wants_max and e in by else by.get(e, 0.0)))
    names = {e: a for e, a in zip(entities, state.get("answers") or [], strict=False)}
    return {"answer_entities": ordered, "answers": [names.get(e, e) for e in ordered],
            "constraint": {"relation": relation, "largest_first": wants_max, "values": {e: by[e] for e in ordered if e in by}}}
