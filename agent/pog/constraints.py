"""Constraints that pick among the answer's candidates by what the graph holds about them.

Mentions: "who plays *Timon's* voice in the lion king" ends at every voice actor of the
film; the one whose performance (an unnamed CVT node) names the character Timon comes
first. A candidate whose neighbour, directly or through an unnamed node, or whose literal
attribute the question names (beyond its topic entities) is placed before the others.

Superlatives and comparatives ("the latest", "the earliest", "the largest"):
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

from agent.evaluation.metrics import named_in
from agent.events import Update, traced
from agent.pog.context import PoGContext
from agent.pog.memory import mask_question
from agent.pog.state import Entity, PoGState
from kg_store.ids import relation_words

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


Fact = tuple[str, str, str | None]  # (relation, text, the neighbour's id; None for a literal)


def candidate_facts(ctx: PoGContext, candidates: Sequence[str]) -> dict[str, list[Fact]]:
    """candidate -> its literal attributes and its named neighbours, directly or through
    one unnamed node (the relation then written `relation./next relation`)."""
    facts: dict[str, list[Fact]] = {e: [(r, t, None) for r, t in a] for e, a in ctx.store.attributes(list(candidates)).items()}
    edges, _ = ctx.neighbours.neighbors(list(candidates))
    unnamed = {e.neighbor for es in edges.values() for e in es if e.neighbor_name is None}
    cvt_edges, _ = ctx.neighbours.neighbors(sorted(unnamed)) if unnamed else ({}, set())
    for entity in candidates:
        for edge in edges.get(entity, ()):
            if edge.neighbor_name is not None:
                facts.setdefault(entity, []).append((edge.relation, edge.neighbor_name, edge.neighbor))
                continue
            facts.setdefault(entity, []).extend(
                (f"{edge.relation}./{e.relation}", e.neighbor_name, e.neighbor) for e in cvt_edges.get(edge.neighbor, ())
                if e.neighbor_name is not None and e.neighbor != entity)
    return facts


def candidate_values(facts: dict[str, list[Fact]]) -> dict[str, dict[str, float]]:
    """relation -> candidate -> value, of the facts that are dates or numbers."""
    values: dict[str, dict[str, float]] = {}
    for entity, found in facts.items():
        for relation, text, _ in found:
            value = as_value(text)
            if value is not None:
                values.setdefault(relation, {}).setdefault(entity, value)
    return values


def mentioned(question: str, topics: Sequence[Entity], facts: dict[str, list[Fact]]) -> dict[str, list[str]]:
    """candidate -> the texts of its facts that the question names, whole words, the topic
    entities aside; texts without a letter, or shorter than three characters, name nothing
    (a year or "3" would match by chance)."""
    topic_ids = {t.id for t in topics}
    topic_names = [t.name for t in topics if t.name]
    found: dict[str, list[str]] = {}
    for entity, pairs in facts.items():
        texts = {text for _, text, node in pairs if node not in topic_ids and len(text) >= 3
                 and re.search(r"[^\W\d_]", text) and not any(named_in(text, n) for n in topic_names)}
        said = sorted(t for t in texts if named_in(question, t))
        if said:
            found[entity] = said
    return found


@traced
def apply_mentions(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """With several answers, the ones the question's other names point at first ("Timon"
    for the voice actor whose performance is Timon's); nothing changes when none or all
    of them are."""
    entities = state.get("answer_entities") or []
    if len(entities) < 2:
        return {}
    found = mentioned(state["question"], state.get("topics") or [], candidate_facts(runtime.context, entities))
    if not found or len(found) == len(entities):
        return {}
    ordered = [e for e in entities if e in found] + [e for e in entities if e not in found]
    names = dict(zip(entities, state.get("answers") or [], strict=False))
    return {"answer_entities": ordered, "answers": [names.get(e, e) for e in ordered], "mentions": found}


@traced
def apply_superlative(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """With a superlative or comparative in the question and several answers, the answers
    ordered by the value the best-matching relation gives them (those without one last)."""
    wants_max = superlative(mask_question(state["question"], [t.name or t.id for t in state.get("topics") or []]))
    entities = state.get("answer_entities") or []
    if wants_max is None or len(entities) < 2:
        return {}
    ctx = runtime.context
    values = {r: v for r, v in candidate_values(candidate_facts(ctx, entities)).items()
              if len(v) >= 2 and len(set(v.values())) > 1}
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
