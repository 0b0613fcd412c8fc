"""The LLM interface every pipeline node calls, and what a call returns."""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from agent.llm.parsing import parse_reply
from kg_store.errors import KGQAError

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": ...}
Model = TypeVar("Model", bound=BaseModel)


class LLMError(KGQAError):
    """Base class of the model layer's errors."""


class LLMUnavailable(LLMError):
    """The endpoint cannot serve us: unreachable, server errors or rate limits after
    retries, a refused key, or replies that are not chat completions (an HTML page from a
    proxy, a body that is not JSON). Every later request would fail the same way, so a
    batch run stops here (a rerun resumes) instead of scoring the failures as answers."""


class LLMTimeout(LLMError):
    """The endpoint took longer than the timeout (after retries) to answer one request: a
    generation too slow for it, or a stuck server. One question's failure, unless it
    keeps happening (the evaluation harness stops after consecutive ones)."""


class ModelNotFound(LLMUnavailable):
    """The endpoint answers but does not serve the configured model."""


@dataclass
class Usage:
    """Running totals for one question (or any span the caller chooses)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cache_hits: int = 0
    # Each call's prompt and reply, for traces; kept only when asked (track(log=True)).
    log: list[dict[str, Any]] | None = None

    def add(self, reply: LLMReply, messages: list[Message]) -> None:
        self.calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        self.seconds += reply.seconds
        self.cache_hits += int(reply.cached)
        if self.log is not None:
            self.log.append({"messages": messages, "reply": reply.text, "prompt_tokens": reply.prompt_tokens,
                             "completion_tokens": reply.completion_tokens, "seconds": round(reply.seconds, 3),
                             "cached": reply.cached, "ended": round(time.time(), 3)})


@dataclass
class LLMReply:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached: bool = False
    # (token, logprob) for each generated token, when asked for and served.
    logprobs: list[tuple[str, float]] | None = None
    # Structured output: the validated object, or None with the reason in parse_error.
    parsed: Any = None
    parse_error: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)


class LLMClient(ABC):
    """Chat completion with optional structured output. Implementations fill `_chat`;
    parsing, the one repair retry and usage accounting live here once."""

    def __init__(self) -> None:
        self.usage = Usage()  # everything since this client was made
        self._local = threading.local()
        self._lock = threading.Lock()

    @contextmanager
    def track(self, *, log: bool = False) -> Iterator[Usage]:
        """Count this thread's calls separately (one question) while the block runs;
        with `log`, keep every prompt and reply too."""
        usage, previous = Usage(log=[] if log else None), getattr(self._local, "usage", None)
        self._local.usage = usage
        try:
            yield usage
        finally:
            self._local.usage = previous

    def _account(self, messages: list[Message], reply: LLMReply) -> None:
        with self._lock:
            self.usage.add(reply, messages)
        current = getattr(self._local, "usage", None)
        if current is not None:
            current.add(reply, messages)

    @property
    @abstractmethod
    def model_name(self) -> str: ...

    @abstractmethod
    def _chat(
        self,
        messages: list[Message],
        *,
        temperature: float,
        max_tokens: int,
        schema: type[BaseModel] | None,
        logprobs: bool,
    ) -> LLMReply:
        """One request to the model; raises LLMError subclasses, never driver errors."""

    def prime(self, messages: list[Message]) -> None:
        """Have the model read `messages` ahead of requests that start the same way, while
        nobody waits: llama.cpp's server keeps the state of what it read (its prompt
        cache), and a request that starts alike then reads only the rest. Neither counted
        nor cached; a failure is left to the request that follows to report."""
        try:
            self._chat(messages, temperature=0.0, max_tokens=1, schema=None, logprobs=False)
        except LLMError:
            pass

    def chat(
        self,
        messages: list[Message],
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        schema: type[Model] | None = None,
        logprobs: bool = False,
    ) -> LLMReply:
        """Ask the model. With `schema`, the reply is parsed into it (tolerantly), and one
        repair request is made if that fails; `parsed` is None when even that fails."""
        started = time.perf_counter()
        reply = self._chat(messages, temperature=temperature, max_tokens=max_tokens, schema=schema, logprobs=logprobs)
        self._account(messages, reply)
        if schema is None:
            return reply
        reply.parsed, reply.parse_error = parse_reply(reply.text, schema)
        if reply.parsed is None:
            repair = [
                *messages,
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": "That reply was not valid JSON for the requested format "
                 f"({reply.parse_error}). Reply again with only the JSON object."},
            ]
            retry = self._chat(repair, temperature=0.0, max_tokens=max_tokens, schema=schema, logprobs=logprobs)
            self._account(repair, retry)
            retry.parsed, retry.parse_error = parse_reply(retry.text, schema)
            reply = retry
        reply.seconds = time.perf_counter() - started
        return reply
