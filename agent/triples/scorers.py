"""Triple scorers: how relevant each triple of the question subgraph is, in (0, 1].
Embedding cosine by default; the KG-Scout policy network when a checkpoint is given."""

from __future__ import annotations

from agent.embeddings import Embedder
from agent.optional_nodes.triple_scoring import CosineScorer, TripleScorer
from agent.triples.config import TriplesConfig
from kg_store.errors import ConfigError


def make_scorer(config: TriplesConfig, embedder: Embedder) -> TripleScorer:
    if config.scorer == "kg-scout":
        if config.scorer_model is None:
            raise ConfigError("scorer kg-scout needs a trained model: --scorer-model model.pt (kgqa train kg-scout)")
        from agent.optional_nodes.kg_scout.scorer import KGScoutScorer

        return KGScoutScorer.load(config.scorer_model, embedder)
    return CosineScorer(embedder)
