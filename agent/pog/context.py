"""What the nodes run against (the LangGraph runtime context): store, model, embeddings,
the path memory, and a neighbour cache shared by every question of a run."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from agent.embeddings import Embedder
from agent.llm.base import LLMClient
from agent.optional_nodes.graphrag_fi import AttentionPathScorer, SimilarityPathScorer, coarse_scorer
from agent.pog.config import PoGConfig
from agent.pog.memory import PathMemory
from kg_store import GraphStore
from kg_store.paths import NeighborCache


@dataclass
class PoGContext:
    store: GraphStore
    llm: LLMClient
    embedder: Embedder
    config: PoGConfig = field(default_factory=PoGConfig)
    memory: PathMemory | None = None
    # The embedded model's GGUF, when that is the model in use: GraphRAG-FI reads its attention.
    model_weights: Path | None = None
    neighbours: NeighborCache = field(init=False)

    def __post_init__(self) -> None:
        # No I/O here: the path memory is loaded by whoever opens the agent
        # (`agent.assembly.context.pog_context`), never as a side effect of building this.
        self.neighbours = self.config.neighbour_cache(self.store)

    @property
    def synthetic_memory(self) -> bool:
        """Whether the path memory was synthesised from the graph (no labelled question)."""
        return self.memory is not None and self.memory.synthetic

    @cached_property
    def coarse_scorer(self) -> AttentionPathScorer | SimilarityPathScorer:
        return coarse_scorer(self.config.graphrag_fi.coarse, self.embedder, self.model_weights,
                             self.config.graphrag_fi.attention_tokens)
