"""`llm-only`: the question straight to the model (the IO prompt). No graph at all."""

from __future__ import annotations

from agent.answer_text import PipelineResult, read_answers
from agent.llm.base import LLMClient
from loaders.questions import Question
from prompts import render


class LLMOnlyPipeline:
    name = "llm-only"

    def __init__(self, llm: LLMClient, *, max_tokens: int = 64) -> None:
        self.llm, self.max_tokens = llm, max_tokens

    def answer(self, question: Question) -> PipelineResult:
        reply = self.llm.chat([{"role": "user", "content": render("answer_io", question=question.text)}],
                              max_tokens=self.max_tokens)
        return PipelineResult(read_answers(reply.text), reply.text)
