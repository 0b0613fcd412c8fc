"""The parts of the agent built from settings, for `open_agent`. Every entry point opens
its store and PoG context through it, so they cannot drift apart: with GraphRAG-FI on,
all of them read the embedded model's attention, not only the one that happened to pass
the weights."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from kg_store import GraphStore, open_store

if TYPE_CHECKING:  # the agent's modules load on first use: `kgqa load` opens stores here too, and starts fast
    from agent.embeddings import Embedder
    from agent.llm.base import LLMClient
    from agent.pog.context import PoGContext
    from agent.pog.memory import PathMemory
    from agent.settings import Settings


def embedded_weights(settings: Settings) -> Path | None:
    """The GGUF of the embedded model when it is the one answering (GraphRAG-FI reads its
    attention); None for an endpoint, whose weights we cannot read."""
    if settings.llm_base_url:
        return None
    from agent.llm.local import MODELS

    return settings.data_dir / "models" / MODELS[settings.llm].filename


def open_settings_store(settings: Settings, url: str | None = None, *, read_only: bool = False) -> GraphStore:
    """The store at `url` (default: the settings' own), with the settings' schema
    prefixes and Neo4j credentials."""
    return open_store(url or settings.store_url, read_only=read_only, **store_options(settings))


def store_options(settings: Settings) -> dict:
    """`open_store`'s keyword arguments from the settings: schema prefixes, Neo4j credentials."""
    from kg_store.registry import BoltOptions

    return {"schema_prefixes": settings.schema_prefixes,
            "bolt": BoltOptions(settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)}


def pog_context(settings: Settings, store: GraphStore, llm: LLMClient, embedder: Embedder,
                memory: PathMemory | None = None) -> PoGContext:
    """PoG's context over an open store, model, embeddings and path memory (`open_agent`
    loads them): the settings' PoG knobs, and the embedded model's weights when it is the
    one answering."""
    from agent.pog.context import PoGContext

    weights = embedded_weights(settings)
    return PoGContext(store, llm, embedder, settings.pog, memory=memory, model_weights=weights)


def warm_up(pog: PoGContext, *, prime_model: bool = True) -> None:
    """Pay ahead, while nobody waits (a chat before its first question, a server before its
    first request), what a first question would: the model reading the fixed start of the
    prompts a question sends first (the analysis prompt's instructions and examples, the
    answer prompt's), so that the question's own requests read only what follows (about a
    second of a first answer with a path memory, more without: docs/benchmarks.md); then
    the embeddings' bulk model, which a large batch would otherwise load mid-answer."""
    from agent.pog.analysis import analysis_is_read
    from prompts import head

    if prime_model:
        first = ["pog_analyse"] if analysis_is_read(pog.config, has_memory=pog.memory is not None) else []
        first.append("pog_answer_judged" if pog.config.sufficiency == "llm" else "pog_answer")
        for start in filter(None, map(head, first)):  # the paper's prompts may open with a slot
            pog.llm.prime([{"role": "user", "content": start}])
    pog.embedder.bulk_model()


@contextmanager
def model_in_background(settings: Settings,
                        on_weights_joined: Callable[[], None] | None = None) -> Iterator[Future[LLMClient]]:
    """The settings' model, started on a thread (the embedded one: its weights joined and
    its server started) while the caller opens its store and loads embeddings; stopped on
    exit, after its start has ended. `.result()` waits for it and raises what the start raised.
    `on_weights_joined` is called, on that thread, if the start joins the weights (first use)."""
    from agent.assembly.models import open_llm

    abandoned = threading.Event()
    with ExitStack() as model, ThreadPoolExecutor(1, thread_name_prefix="model-start") as starting:
        try:
            yield starting.submit(lambda: model.enter_context(open_llm(settings, abandoned, on_weights_joined)))
        except BaseException:
            abandoned.set()  # leaving on an error or Ctrl-C: a start under way gives up, not waited for
            raise
