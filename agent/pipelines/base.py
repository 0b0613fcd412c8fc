"""What every pipeline returns, and the answer-line reader they share."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from agent.evaluation.metrics import normalize
from loaders.questions import Question

_ANS = re.compile(r"^\s*(?:[-*\d.)\s]*)ans\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
# Tails the small models append to an answer line: "X from these triples", "X."
_TAIL = re.compile(r"\s*(?:\(.*\)|from (?:these|the) (?:triples|facts).*|[.;,]+)\s*$", re.IGNORECASE)


_LIST_SEPARATOR = re.compile(r"\s*[;,]\s*")
_LETTERS = re.compile(r"[^\W\d_]")


def split_answer_list(answer: str, known_names: Collection[str] = ()) -> list[str]:
    """`A, B; C` as three answers: small models often put every answer on one line.
    A name that is itself known (`Washington, D.C.` among the retrieved entities), or one
    whose comma part is too short to be a name (`D.C.`, `Jr.`), stays whole."""
    if normalize(answer) in known_names:
        return [answer]
    parts = [p.strip() for p in _LIST_SEPARATOR.split(answer) if p.strip()]
    if len(parts) < 2 or any(len(_LETTERS.findall(p)) < 3 for p in parts):
        return [answer]
    return parts


def read_answers(text: str, known_names: Iterable[str] = ()) -> list[str]:
    """Answers from `ans: X` lines, in order, de-duplicated, comma lists split; without
    such lines, the first non-empty line (a model that ignored the format still said
    something). `known_names` (the entities the pipeline showed the model) keeps names
    with commas whole."""
    found = [_TAIL.sub("", m).strip().strip("\"'{}[]") for m in _ANS.findall(text)]
    if not found:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        found = [_TAIL.sub("", first).strip().strip("\"'{}[]")] if first else []
    known = {normalize(n) for n in known_names}
    split = [part.strip("\"'{}[]") for answer in found for part in split_answer_list(answer, known)]
    return list(dict.fromkeys(a for a in split if a))


@dataclass
class PipelineResult:
    predictions: list[str]
    raw_output: str = ""
    # Names of the entities the pipeline retrieved (for LLM-free retrieval coverage);
    # None when it retrieves nothing (llm-only).
    retrieved: list[str] | None = None
    details: dict[str, object] = field(default_factory=dict)
    # What goes into the question's trace file only (agent events), not the results row.
    trace: dict[str, object] = field(default_factory=dict)


class Pipeline(Protocol):
    name: str

    def answer(self, question: Question) -> PipelineResult: ...
