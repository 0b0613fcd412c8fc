"""Topic entities for a question: the given ones the store knows, the others linked by
name (search proposes, embedding similarity decides), with every candidate kept."""

from __future__ import annotations

import re

from pydantic import BaseModel

from agent.embeddings import Embedder
from kg_store import GraphStore
from kg_store.paths import NeighborCache

_BRACKETED = re.compile(r"\[([^\[\]]+)\]")
MAX_MENTIONS = 5


class Entity(BaseModel):
    id: str
    name: str | None = None


def resolve_topics(store: GraphStore, neighbours: NeighborCache, embedder: Embedder, question: str,
                   given: list[Entity], mentions: list[str]) -> tuple[list[Entity], dict[str, list[Entity]]]:
    """Given topic entities that the store knows are used as they are; the others (names
    from RoG files, say) are linked by name, and so are the LLM's mentions when none were
    given. Bracketed names in the question count as mentions too."""
    if given:
        edges, _ = neighbours.neighbors([t.id for t in given])
        known = [t for t in given if edges.get(t.id)]
        unknown = [t.name or t.id for t in given if not edges.get(t.id)]
        if not unknown:
            return known, {}
        linked, candidates = link_entities(store, embedder, unknown)
        return _unique(known + linked), candidates
    wanted = [m for m in (*_BRACKETED.findall(question), *mentions) if isinstance(m, str) and m.strip()]
    topics, candidates = link_entities(store, embedder, wanted)
    if not topics:  # the model named nothing the store knows: try the question's capitalised names
        topics, candidates = link_entities(store, embedder, capitalised_spans(question))
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


def link_entities(store: GraphStore, embedder: Embedder, mentions: list[str]) -> tuple[list[Entity], dict[str, list[Entity]]]:
    """Each mention to the store's best match: name search proposes (exact, normalised,
    prefix, substring), and the match kind plus the embedding similarity of mention and
    name decides. Every candidate is kept for the trace."""
    chosen: list[Entity] = []
    candidates: dict[str, list[Entity]] = {}
    for mention in list(dict.fromkeys(m.strip() for m in mentions))[:MAX_MENTIONS]:
        matches = store.search_entities(mention, limit=10)
        if not matches:
            continue
        candidates[mention] = [Entity(id=m.id, name=m.name) for m in matches]
        vectors = embedder.encode([mention, *(m.name for m in matches)])
        similarity = vectors[1:] @ vectors[0]
        best = max(range(len(matches)), key=lambda i: (matches[i].score + float(similarity[i]), -i))
        chosen.append(Entity(id=matches[best].id, name=matches[best].name))
    return _unique(chosen), candidates


def _unique(entities: list[Entity]) -> list[Entity]:
    return list({e.id: e for e in entities}.values())
