"""Answers as text, shared by every layer above: normalising names, matching a name the
model wrote to an entity's, reading answers from a model's reply, and the result a
pipeline returns. Nothing here knows about a graph, a model or an agent.

normalize: the store's own name normalisation (`kg_store.ids.normalize_name`: lowercase,
accents and punctuation gone, so "Amelie" is "Amélie"), then the articles a/an/the dropped,
unless the name is nothing else ("A", the ampere's symbol).
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from kg_store.ids import normalize_name

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=200_000)  # pure, and scoring compares the same few names thousands of times
def normalize(text: str) -> str:
    text = normalize_name(text).replace("_", " ")  # "_" is a word character to the store's search
    # A name that is all articles stays a name: "A" is the ampere's symbol.
    return _SPACES.sub(" ", _ARTICLES.sub(" ", text)).strip() or _SPACES.sub(" ", text).strip()


# A name the LLM writes matches an entity when their normalised forms are equal, or one
# contains the other and the shorter has at least this many characters ("Forrest Gump"
# for "Forrest Gump (film)"; never "a" for "Casablanca").
MIN_CONTAINED = 4


def names_match(said: str, name: str | None) -> bool:
    """How the agent matches a name the model wrote to an entity's name (and a trace reader
    the model's names to the final answers)."""
    if not name:
        return False
    a, b = normalize(said), normalize(name)
    if not a or not b:
        return False
    shorter, longer = sorted((a, b), key=len)
    return a == b or (len(shorter) >= MIN_CONTAINED and f" {shorter} " in f" {longer} ")


def named_in(question: str, name: str | None) -> bool:
    """Whether the question names `name`: its normalised words, whole, in the question's."""
    said = normalize(name or "")
    return bool(said) and f" {said} " in f" {normalize(question)} "


def names_only_the_question(said: list[str], question: str) -> bool:
    """Whether the model gave names and every one is one the question itself names
    ("ans: Elia Suleiman" for "what did Elia Suleiman direct"): a reply that says nothing."""
    return bool(said) and all(named_in(question, name) for name in said)


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
