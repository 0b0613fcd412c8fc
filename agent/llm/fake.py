"""A scripted model for unit tests: replies come from a list, or from a function of the
messages, in order; every call is recorded so tests can check what a node asked."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel

from agent.llm.base import LLMClient, LLMReply, Message

Script = Sequence[str | LLMReply] | Callable[[list[Message]], str | LLMReply]


class FakeLLM(LLMClient):
    def __init__(self, script: Script, name: str = "fake") -> None:
        super().__init__()
        self._script = script
        self._next = 0
        self._name = name
        self.calls: list[list[Message]] = []
        self.max_tokens: list[int] = []  # each call's reply budget
        self.primed: list[list[Message]] = []  # messages read ahead (`prime`), no reply taken

    @property
    def model_name(self) -> str:
        return self._name

    def prime(self, messages: list[Message]) -> None:
        self.primed.append(list(messages))

    def _chat(
        self,
        messages: list[Message],
        *,
        temperature: float,
        max_tokens: int,
        schema: type[BaseModel] | None,
        logprobs: bool,
    ) -> LLMReply:
        self.calls.append(list(messages))
        self.max_tokens.append(max_tokens)
        if callable(self._script):
            answer = self._script(messages)
        else:
            if self._next >= len(self._script):
                raise AssertionError(f"FakeLLM ran out of scripted replies after {self._next} calls")
            answer = self._script[self._next]
            self._next += 1
        if isinstance(answer, LLMReply):
            return LLMReply(**answer.__dict__)
        prompt_tokens = sum(len(m["content"].split()) for m in messages)
        return LLMReply(text=answer, prompt_tokens=prompt_tokens, completion_tokens=len(answer.split()))
