"""Pipelines by name, built from the settings (what `kgqa eval --pipeline` chooses)."""

from __future__ import annotations

from agent.assembly.context import embedded_weights, pog_context
from agent.llm.base import LLMClient
from agent.pipelines.base import Pipeline
from agent.settings import Settings
from kg_store import GraphStore
from kg_store.errors import ConfigError

PIPELINES = ("llm-only", "cosine-triples", "pog", "triples")


def make_pipeline(name: str, llm: LLMClient, store: GraphStore, settings: Settings) -> Pipeline:
    if name not in PIPELINES:
        raise ConfigError(f"unknown pipeline {name!r}: expected one of {', '.join(PIPELINES)}")
    if name == "llm-only":
        from agent.pipelines.llm_only import LLMOnlyPipeline

        return LLMOnlyPipeline(llm)
    from agent.embeddings import Embedder

    embedder = Embedder.from_settings(settings)
    if name == "pog":
        from agent.pipelines.pog import PoGPipeline

        return PoGPipeline(pog_context(settings, store, llm, embedder))
    if name == "triples":
        from agent.pipelines.triples import TriplesPipeline

        return TriplesPipeline(llm, store, embedder, settings.triples, model_weights=embedded_weights(settings))
    from agent.pipelines.cosine_triples import CosineTriplesPipeline

    return CosineTriplesPipeline(llm, store, embedder)
