"""Pipelines by name, built from the settings (what `kgqa eval --pipeline` chooses)."""

from __future__ import annotations

from pathlib import Path

from agent.llm.base import LLMClient
from agent.pipelines.base import Pipeline
from kg_store import GraphStore
from kgqa.settings import Settings

PIPELINES = ("llm-only", "cosine-triples", "pog", "triples")


def embedded_weights(settings: Settings) -> Path | None:
    """The GGUF of the embedded model when it is the one answering (GraphRAG-FI reads its
    attention); None for an endpoint, whose weights we cannot read."""
    if settings.llm_base_url:
        return None
    from agent.llm.local import MODELS

    return settings.data_dir / "models" / MODELS[settings.llm].filename


def make_pipeline(name: str, llm: LLMClient, store: GraphStore, settings: Settings) -> Pipeline:
    if name not in PIPELINES:
        raise ValueError(f"unknown pipeline {name!r}: expected one of {', '.join(PIPELINES)}")
    if name == "llm-only":
        from agent.pipelines.llm_only import LLMOnlyPipeline

        return LLMOnlyPipeline(llm)
    from agent.embeddings import Embedder

    embedder = Embedder.from_settings(settings)
    if name == "pog":
        from agent.pipelines.pog import PoGPipeline

        return PoGPipeline(llm, store, embedder, settings.pog, model_weights=embedded_weights(settings))
    if name == "triples":
        from agent.pipelines.triples import TriplesPipeline

        return TriplesPipeline(llm, store, embedder, settings.triples, model_weights=embedded_weights(settings))
    from agent.pipelines.cosine_triples import CosineTriplesPipeline

    return CosineTriplesPipeline(llm, store, embedder)
