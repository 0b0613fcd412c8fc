"""Pipelines by name over an opened agent (what `kgqa eval --pipeline` chooses): PoG is
the agent itself; the baselines share its store, model and embeddings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.assembly.context import embedded_weights
from agent.pipelines.base import Pipeline
from agent.settings import Settings
from kg_store.errors import ConfigError

if TYPE_CHECKING:
    from agent.assembly.agent import OpenAgent

PIPELINES = ("llm-only", "cosine-triples", "pog", "triples")


def make_pipeline(name: str, agent: OpenAgent, settings: Settings) -> Pipeline:
    if name not in PIPELINES:
        raise ConfigError(f"unknown pipeline {name!r}: expected one of {', '.join(PIPELINES)}")
    context = agent.context
    if name == "llm-only":
        from agent.pipelines.llm_only import LLMOnlyPipeline

        return LLMOnlyPipeline(context.llm)
    if name == "pog":
        from agent.pipelines.pog import PoGPipeline

        return PoGPipeline(context)
    if name == "triples":
        from agent.pipelines.triples import TriplesPipeline

        return TriplesPipeline(context.llm, context.store, context.embedder, settings.triples,
                               model_weights=embedded_weights(settings))
    from agent.pipelines.cosine_triples import CosineTriplesPipeline

    return CosineTriplesPipeline(context.llm, context.store, context.embedder)
