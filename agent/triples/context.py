"""What the triple pipeline's nodes run against: store, model, embeddings, the scorer."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from agent.embeddings import Embedder
from agent.llm.base import LLMClient
from agent.optional_nodes.graphrag_fi import AttentionPathScorer, SimilarityPathScorer, coarse_scorer
from agent.triples.config import TriplesConfig
from agent.triples.scorers import TripleScorer, make_scorer
from kg_store import GraphStore
from kg_store.paths import NeighborCache


@dataclass
class TriplesContext:
    store: GraphStore
    llm: LLMClient
    embedder: Embedder
    config: TriplesConfig = field(default_factory=TriplesConfig)
    # The embedded model's GGUF, when that is the model in use: GraphRAG-FI reads its attention.
    model_weights: Path | None = None
    scorer: TripleScorer = field(init=False)
    neighbours: NeighborCache = field(init=False)  # for topic linking

    def __post_init__(self) -> None:
        self.scorer = make_scorer(self.config, self.embedder)
        self.neighbours = NeighborCache(self.store, limit_per_entity=self.config.max_degree)

    @cached_property
    def coarse_scorer(self) -> AttentionPathScorer | SimilarityPathScorer:
        return coarse_scorer(self.config.graphrag_fi.coarse, self.embedder, self.model_weights,
                             self.config.graphrag_fi.attention_tokens)
