"""What every pipeline returns, and the answer-line reader they share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from loaders.questions import Question

_ANS = re.compile(r"^\s*(?:[-*\d.)\s]*)ans\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
# Tails the small models append to an answer line: "X from these triples", "X."
_TAIL = re.compile(r"\s*(?:\(.*\)|from (?:these|the) (?:triples|facts).*|[.;,]+)\s*$", re.IGNORECASE)


def read_answers(text: str) -> list[str]:
    """Answers from `ans: X` lines, in order, de-duplicated; without such lines, the
    first non-empty line (a model that ignored the format still said something)."""
    found = [_TAIL.sub("", m).strip().strip("\"'{}[]") for m in _ANS.findall(text)]
    if not found:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        found = [_TAIL.sub("", first).strip().strip("\"'{}[]")] if first else []
    return list(dict.fromkeys(a for a in found if a))


@dataclass
class PipelineResult:
    predictions: list[str]
    raw_output: str = ""
    # Names of the entities the pipeline retrieved (for LLM-free retrieval coverage);
    # None when it retrieves nothing (llm-only).
    retrieved: list[str] | None = None
    details: dict[str, object] = field(default_factory=dict)


class Pipeline(Protocol):
    name: str

    def answer(self, question: Question) -> PipelineResult: ...
