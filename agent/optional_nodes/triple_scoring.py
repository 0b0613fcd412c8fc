"""How relevant each triple of a question's subgraph is, in (0, 1]: the protocol the
triple pipeline's scorers meet, and the embedding cosine one that path pooling uses too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from agent.embeddings import Embedder
from agent.optional_nodes.kg_scout.features import linearise
from kg_store import Triple


class TripleScorer(Protocol):
    name: str

    def score(self, question: str, triples: Sequence[Triple], names: dict[str, str | None],
              topics: Sequence[str]) -> np.ndarray: ...


class CosineScorer:
    """(1 + cos) / 2 of the question's and the triple's embeddings (the triple linearised as
    KG-Scout does, so this is its pre-filter's ranking): positive, as path pooling's
    positional term needs."""

    name = "cosine"

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def score(self, question: str, triples: Sequence[Triple], names: dict[str, str | None],
              topics: Sequence[str]) -> np.ndarray:
        if not triples:
            return np.zeros(0, dtype=np.float32)
        vectors = self.embedder.encode([question, *(linearise(t, names) for t in triples)])
        return (1.0 + vectors[1:] @ vectors[0]) / 2.0
