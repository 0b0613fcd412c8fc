"""Every knob of the triple pipeline and its optional nodes (`Settings.triples`, `KGQA_TRIPLES__*`)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from agent.optional_nodes.config import GRAPHRAG_FI_NAMES, GraphRAGFIConfig, PoolingConfig


class TriplesConfig(BaseModel):
    hops: int = Field(default=2, ge=1, le=4, description="Question subgraph: hops around the topic entities.")
    max_degree: int = Field(default=200, ge=1, description="Hub cap: edges read per entity and direction.")
    max_edges: int = Field(default=5_000, ge=1, description="Question subgraph: edges at most.")
    scorer: Literal["cosine", "kg-scout"] = "cosine"
    scorer_model: Path | None = Field(default=None, description="A KG-Scout checkpoint (kgqa train kg-scout).")
    top_k: int = Field(default=30, ge=1, description="Triples shown to the model.")
    pooling: PoolingConfig = Field(default_factory=PoolingConfig)
    graphrag_fi: GraphRAGFIConfig = Field(default_factory=GraphRAGFIConfig, validation_alias=GRAPHRAG_FI_NAMES)
    answer_max_tokens: int = Field(default=64, ge=8)
