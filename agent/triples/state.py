"""The typed state of the triple pipeline: plain data, like PoG's."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from pydantic import BaseModel

from agent.linking import Entity
from kg_store import UNNAMED, Triple


class ScoredTriple(BaseModel):
    head: str
    relation: str
    tail: str
    score: float  # the scorer's, in (0, 1]
    pooled: float | None = None  # after path pooling
    text: str  # `Head -> relation -> Tail`, with names

    @property
    def triple(self) -> Triple:
        return Triple(self.head, self.relation, self.tail)

    @classmethod
    def of(cls, triple: Triple, score: float, names: dict[str, str | None]) -> ScoredTriple:
        text = f"{names.get(triple.head) or UNNAMED} -> {triple.relation} -> {names.get(triple.tail) or UNNAMED}"
        return cls(head=triple.head, relation=triple.relation, tail=triple.tail, score=round(score, 6), text=text)


class TriplesState(TypedDict, total=False):
    question: str
    question_id: str | None
    given_topics: list[Entity]
    topics: list[Entity]
    link_candidates: dict[str, list[Entity]]
    subgraph: dict[str, object]  # what was read: triples, entities, hubs capped, cut short
    names: dict[str, str | None]
    triples: list[ScoredTriple]  # best first; after the optional nodes, the ones shown, in prompt order
    evidence: str  # what the answer prompt reads
    prompt_kind: str  # answer_triples (one triple a line) or pog_answer (merged paths)
    raw_output: str
    answer_logprobs: list[tuple[str, float]] | None  # of the answer reply, for GraphRAG-FI's integration
    fi: dict[str, object]  # GraphRAG-FI: which coarse filter ran, its scores, the model's picks, each answer's fate
    answers: list[str]
    source: str | None
    events: Annotated[list[dict], operator.add]
