"""The protocol every pipeline meets: a question in, a `PipelineResult` out."""

from __future__ import annotations

from typing import Protocol

from agent.answer_text import PipelineResult
from loaders.questions import Question

__all__ = ["Pipeline", "PipelineResult"]


class Pipeline(Protocol):
    name: str

    def answer(self, question: Question) -> PipelineResult: ...
