"""Triple scorers: how relevant each triple of the question subgraph is, in (0, 1].
Embedding cosine by default; the KG-Scout policy network when a checkpoint is given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from agent.embeddings import Embedder
from agent.optional.kg_scout.features import linearise
from agent.triples.config import TriplesConfig
from kg_store import Triple
from kg_store.errors import ConfigError


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


def make_scorer(config: TriplesConfig, embedder: Embedder) -> TripleScorer:
    if config.scorer == "kg-scout":
        if config.scorer_model is None:
            raise ConfigError("scorer kg-scout needs a trained model: --scorer-model model.pt (kgqa train kg-scout)")
        from agent.optional.kg_scout.scorer import KGScoutScorer

        return KGScoutScorer.load(config.scorer_model, embedder)
    return CosineScorer(embedder)
