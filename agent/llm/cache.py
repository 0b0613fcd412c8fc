"""A persistent response cache: reruns of a benchmark are cheap and give the same
replies. Keyed by the full request (endpoint, model, messages, sampling, schema)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path

from pydantic import BaseModel

from agent.llm.base import LLMClient, LLMReply, Message


class CachedLLM(LLMClient):
    def __init__(self, inner: LLMClient, path: Path, *, endpoint: str = "") -> None:
        super().__init__()
        self.inner, self.endpoint = inner, endpoint
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)")
        self._db.commit()
        self._db_lock = threading.Lock()

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    def _key(self, messages: list[Message], **request: object) -> str:
        schema = request.pop("schema")
        body = {
            "endpoint": self.endpoint, "model": self.model_name, "messages": messages, **request,
            "schema": schema.model_json_schema() if isinstance(schema, type) and issubclass(schema, BaseModel) else None,
        }
        return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def _chat(
        self,
        messages: list[Message],
        *,
        temperature: float,
        max_tokens: int,
        schema: type[BaseModel] | None,
        logprobs: bool,
    ) -> LLMReply:
        key = self._key(messages, temperature=temperature, max_tokens=max_tokens, schema=schema, logprobs=logprobs)
        started = time.perf_counter()
        with self._db_lock:
            row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        if row is not None:
            stored = json.loads(row[0])
            return LLMReply(
                text=stored["text"], prompt_tokens=stored["prompt_tokens"], completion_tokens=stored["completion_tokens"],
                seconds=time.perf_counter() - started, cached=True,
                logprobs=[tuple(p) for p in stored["logprobs"]] if stored["logprobs"] is not None else None,  # type: ignore[misc]
            )
        reply = self.inner._chat(messages, temperature=temperature, max_tokens=max_tokens, schema=schema, logprobs=logprobs)
        stored = {"text": reply.text, "prompt_tokens": reply.prompt_tokens,
                  "completion_tokens": reply.completion_tokens, "logprobs": reply.logprobs}
        with self._db_lock:
            self._db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?)", (key, json.dumps(stored)))
            self._db.commit()
        return reply

    def prime(self, messages: list[Message]) -> None:
        self.inner.prime(messages)  # the model reads it: a stored reply would skip that

    def close(self) -> None:
        self._db.close()
