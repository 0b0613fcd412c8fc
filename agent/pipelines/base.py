"""What every pipeline returns, and the answer-line reader they share."""

from __future__ import annotations

import difflib
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
    known = {normalize(n): n for n in known_names if n}
    split = [part.strip("\"'{}[]") for answer in found for part in split_answer_list(answer, known)]
    return list(dict.fromkeys(_spelled_as_known(a, known) for a in split if a))


# How alike (difflib's ratio of the normalised names) a name the model wrote must be to a
# shown name to be read as that name misspelt: "Gujararati Language" for "Gujarati Language".
TYPO_SIMILARITY = 0.85


def _spelled_as_known(said: str, known: dict[str, str]) -> str:
    """The shown name the model meant when it copied one with a typo, else `said` as written.

    The small models copy names from the prompt and now and then misspell one, which then
    matches nothing shown. Read as a typo only a name of as many words, each starting with
    the same letter as its counterpart and, where they differ, both four letters or longer,
    alike enough, and nearer than any other shown name: "John Kerry" is not "John Berry",
    nor "Rocky II" "Rocky III".
    """
    said_n = normalize(said)
    if not said_n or said_n in known:
        return said
    words = said_n.split()

    def same_words(name: str) -> bool:
        other = name.split()
        return len(other) == len(words) and all(
            a == b or (a[0] == b[0] and min(len(a), len(b)) >= 4) for a, b in zip(words, other, strict=True))

    close = [(difflib.SequenceMatcher(None, said_n, name).ratio(), name) for name in known if same_words(name)]
    close = sorted((c for c in close if c[0] >= TYPO_SIMILARITY), reverse=True)
    if not close or (len(close) > 1 and close[1][0] == close[0][0]):
        return said
    return known[close[0][1]]


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
