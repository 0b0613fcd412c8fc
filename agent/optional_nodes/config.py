"""Settings of the optional nodes, shared by the pipelines that can run them."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, BaseModel, Field


class PoolingConfig(BaseModel):
    """Path pooling (agent/optional_nodes/path_pooling.py)."""

    enabled: bool = False
    search: Literal["dijkstra", "bfs", "random_walk"] = "dijkstra"
    pooling: Literal["mean", "max"] = "mean"
    order: Literal["recency", "middle"] = Field(
        default="recency", description="recency: best triples last; middle: best at both ends.")
    reselect_from: int | None = Field(
        default=None, ge=1, description="Triple reselection: pool the scorer's top N and keep the best top_k "
        "(the paper: 500); unset: rerank the top_k only.")


# Settings name GraphRAG-FI's knobs `graphrag_fi` (`KGQA_POG__GRAPHRAG_FI__FILTER`); `fi`, their
# earlier name, is still read so that users' environments and files keep working.
GRAPHRAG_FI_NAMES = AliasChoices("graphrag_fi", "fi")


class GraphRAGFIConfig(BaseModel):
    """GraphRAG-FI (agent/optional_nodes/graphrag_fi.py)."""

    filter: bool = Field(default=False, description="Coarse (attention) and fine (LLM) path filtering.")
    coarse: Literal["auto", "attention", "similarity"] = Field(
        default="auto", description="auto: attention with the embedded model's weights, similarity for endpoints.")
    keep: int = Field(default=40, ge=1, description="Paths the coarse filter keeps.")
    attention_tokens: int | None = Field(
        default=None, ge=64, description="Attention: score only the leading paths (the retrieval's best) whose prompt "
        "fits this many tokens; the rest follow them unscored, in the retrieval order. Unset: every path (the "
        "paper). On two CPU cores the pass takes ~14 s at 4,000 tokens, ~60 s at 12,000 (bench/attention_filter.py); "
        "PoG's 80 paths run to 12,000 and more.")
    fine: bool = Field(default=True, description="Let the model mark the useful paths (High Priority Paths).")
    integrate: bool = Field(default=False, description="Join the graph's answer with the model-only answer by confidence.")
    tau_graph: float = Field(default=0.5, ge=0.0, le=1.0, description="Confidence a graph answer needs.")
    tau_llm: float = Field(default=1.0, ge=0.0, le=1.0, description="Confidence a model-only answer needs.")
