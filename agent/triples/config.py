"""Every knob of the triple pipeline and its optional nodes (`Settings.triples`, `KGQA_TRIPLES__*`)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field


class PoolingConfig(BaseModel):
    """Path pooling (agent/optional/path_pooling.py)."""

    enabled: bool = False
    search: Literal["dijkstra", "bfs", "random_walk"] = "dijkstra"
    pooling: Literal["mean", "max"] = "mean"
    order: Literal["recency", "middle"] = Field(
        default="recency", description="recency: best triples last; middle: best at both ends.")
    reselect_from: int | None = Field(
        default=None, ge=1, description="Triple reselection: pool the scorer's top N and keep the best top_k "
        "(the paper: 500); unset: rerank the top_k only.")


class TriplesConfig(BaseModel):
    hops: int = Field(default=2, ge=1, le=4, description="Question subgraph: hops around the topic entities.")
    max_degree: int = Field(default=200, ge=1, description="Hub cap: edges read per entity and direction.")
    max_edges: int = Field(default=5_000, ge=1, description="Question subgraph: edges at most.")
    scorer: Literal["cosine", "kg-scout"] = "cosine"
    scorer_model: Path | None = Field(default=None, description="A KG-Scout checkpoint (kgqa train kg-scout).")
    top_k: int = Field(default=30, ge=1, description="Triples shown to the model.")
    pooling: PoolingConfig = Field(default_factory=PoolingConfig)
    answer_max_tokens: int = Field(default=64, ge=8)
