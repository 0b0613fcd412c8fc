"""The LLM a run uses, from the settings: a configured endpoint, or the embedded model
started for the run and stopped after it; wrapped in the response cache unless off."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

from agent.llm.base import LLMClient, LLMError
from agent.llm.cache import CachedLLM
from agent.llm.local import MODELS, LocalLlamaServer, assemble, server_threads
from agent.llm.pool import PooledLLM
from agent.settings import Settings


@contextmanager
def open_llm(settings: Settings, abandoned: threading.Event | None = None,
             on_weights_joined: Callable[[], None] | None = None) -> Iterator[LLMClient]:
    """The settings' model, open until the block ends. `abandoned`: set by a caller that
    started this on a thread and is leaving; the embedded servers' start then gives up.
    `on_weights_joined`: called when the embedded model's weights were joined by this start
    (their first use), before its server starts."""
    if settings.llm_base_url:
        from agent.llm.openai_compat import OpenAICompatibleClient

        if not settings.llm_model:
            raise LLMError("KGQA_LLM_BASE_URL is set but KGQA_LLM_MODEL is not: name the model to use")
        client: LLMClient = OpenAICompatibleClient(
            settings.llm_base_url, settings.llm_model, api_key=settings.llm_api_key,
            timeout=settings.llm_timeout, max_retries=settings.llm_max_retries,
            structured=settings.llm_structured or "json_schema",
        )
        with _cached(client, settings, settings.llm_base_url) as ready:
            yield ready
        return
    model = MODELS[settings.llm]
    weights = assemble(model, settings.data_dir / "models", on_weights_joined)
    count = settings.llm_servers
    servers = [
        LocalLlamaServer(weights, log_dir=settings.data_dir / "logs" / (f"server-{i}" if count > 1 else ""),
                         gpu_layers=settings.llm_gpu_layers, logprobs=settings.needs_logprobs,
                         threads=max(1, server_threads() // count))
        for i in range(count)
    ]
    with ExitStack() as running:
        # Launched side by side (each loads its weights), from this thread: a server stops
        # when the thread that launched it ends. All stopped at the end, the ones that did
        # start included when another failed to.
        for server in servers:
            running.callback(server.stop)
            server.launch(exclude_ports=[s.port for s in servers if s.port])
        # The OpenAI client's modules (a quarter second) load while the servers start.
        from agent.llm.openai_compat import OpenAICompatibleClient

        for server in servers:
            server.wait_ready(abandoned=abandoned)
        clients = [
            OpenAICompatibleClient(server.base_url, weights.stem, timeout=settings.llm_timeout,
                                   structured=settings.llm_structured or "json_object", logprobs=server.logprobs)
            for server in servers
        ]
        client = clients[0] if count == 1 else PooledLLM(clients)
        # The cache is keyed by the model file, not the per-run port.
        with _cached(client, settings, f"local:{model.key}:{model.sha256}") as ready:
            yield ready


@contextmanager
def _cached(client: LLMClient, settings: Settings, endpoint: str) -> Iterator[LLMClient]:
    if not settings.llm_cache:
        yield client
        return
    cached = CachedLLM(client, settings.cache_dir / "llm-replies.sqlite", endpoint=endpoint)
    try:
        yield cached
    finally:
        cached.close()
