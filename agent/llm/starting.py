"""A model that is still starting, usable at once: its first request waits for the start.

`open_agent(..., wait_for_model=False)` (`kgqa ask`, `demo`) hands PoG this while the
embedded model's weights are joined and its server starts on another thread, so a
question's work before its first request (linking, walks, pruning by embeddings) overlaps
the start instead of waiting behind it.
"""

from __future__ import annotations

from concurrent.futures import Future

from pydantic import BaseModel

from agent.llm.base import LLMClient, LLMReply, Message


class StartingLLM(LLMClient):
    """The client `starting` will give; each use waits for it and raises what the start
    raised (an `LLMError` for a model that cannot start)."""

    def __init__(self, starting: Future[LLMClient]) -> None:
        super().__init__()
        self._starting = starting

    def started(self) -> LLMClient:
        return self._starting.result()

    @property
    def model_name(self) -> str:
        return self.started().model_name

    def _chat(
        self,
        messages: list[Message],
        *,
        temperature: float,
        max_tokens: int,
        schema: type[BaseModel] | None,
        logprobs: bool,
    ) -> LLMReply:
        return self.started()._chat(messages, temperature=temperature, max_tokens=max_tokens, schema=schema,
                                    logprobs=logprobs)

    def prime(self, messages: list[Message]) -> None:
        self.started().prime(messages)
