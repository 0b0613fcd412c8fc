"""Several copies of one model behind one client: each request goes to a copy that is free.

llama-cpp-python's server answers one request at a time, so `kgqa eval --concurrency K`
against one embedded server only queues; `llm_servers = N` starts N servers (the cores
shared among them) and this client hands each request to whichever is idle.
"""

from __future__ import annotations

import queue
from collections.abc import Sequence

from pydantic import BaseModel

from agent.llm.base import LLMClient, LLMReply, Message


class PooledLLM(LLMClient):
    def __init__(self, clients: Sequence[LLMClient]) -> None:
        if not clients:
            raise ValueError("a pool needs at least one client")
        super().__init__()
        self.clients = list(clients)
        self._idle: queue.Queue[LLMClient] = queue.Queue()
        for client in self.clients:
            self._idle.put(client)

    @property
    def model_name(self) -> str:
        return self.clients[0].model_name

    def _chat(
        self,
        messages: list[Message],
        *,
        temperature: float,
        max_tokens: int,
        schema: type[BaseModel] | None,
        logprobs: bool,
    ) -> LLMReply:
        client = self._idle.get()  # waits for a copy to finish when all are busy
        try:
            return client._chat(messages, temperature=temperature, max_tokens=max_tokens, schema=schema,
                                logprobs=logprobs)
        finally:
            self._idle.put(client)

    def prime(self, messages: list[Message]) -> None:
        for client in self.clients:  # each copy keeps its own prompt cache
            client.prime(messages)
