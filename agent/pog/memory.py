"""Path memory: which relation sequences answered questions like this one.

The small local model cannot rank paths, and sentence embeddings alone confuse depths
("what films did X act in" scores the 2-hop co-actor chain as high as the 1-hop one).
What does rank them is experience: a question set with gold answers (the dev split)
tells, for each question, which relation sequence from its topic entity reaches its
answers. The memory keeps only that: the question with its topic entities masked and
the sequence; never an answer. At run time the nearest remembered questions vote for
sequences, and fuzzy selection adds the vote to the embedding similarity.

A question never uses its own entry (entries are matched by question id), so a memory
built from a split can be evaluated on that same split as leave-one-out.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from agent.embeddings import Embedder
from agent.evaluation.metrics import normalize
from agent.pog.paths import named_depth
from agent.pog.state import PriorChain, StepTuple
from kg_store.paths import NeighborCache, explore, join_topics
from loaders.questions import Gold, Question
from loaders.records import MalformedInput

MASK = "X"
ChainKey = tuple[StepTuple, ...]


class MemoryEntry(BaseModel):
    question_id: str
    question: str  # topic entity names replaced by MASK
    # Every relation sequence that reaches the gold answers best (a tie is common: one
    # person wrote and directed the film); empty when none does (kept so reruns skip it).
    paths: list[list[StepTuple]] = Field(default_factory=list)
    depth: int = 0
    f1: float = 0.0


def mask_question(text: str, names: Iterable[str | None]) -> str:
    """The question with each topic entity's name replaced (case-insensitive), so that
    questions of the same shape about different entities look alike."""
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = re.sub(re.escape(name), MASK, text, flags=re.IGNORECASE)
    return text


class PathMemory:
    """Remembered questions grouped by their masked text (MetaQA's 39k dev questions are
    526 texts): each text is embedded once, and supports each sequence in proportion to
    how many of its questions that sequence answered."""

    def __init__(self, entries: list[MemoryEntry], embedder: Embedder) -> None:
        # text -> how many of its questions were answered by each set of tied sequences
        answered: dict[str, Counter[frozenset[ChainKey]]] = {}
        self.depths: dict[ChainKey, int] = {}
        self.owner: dict[str, tuple[str, frozenset[ChainKey]]] = {}
        for entry in entries:
            if entry.paths:
                chains = frozenset(_key(p) for p in entry.paths)
                answered.setdefault(entry.question, Counter())[chains] += 1
                self.owner[entry.question_id] = (entry.question, chains)
                for chain in chains:
                    self.depths.setdefault(chain, entry.depth)
        self.texts = list(answered)
        self.answered = [answered[t] for t in self.texts]
        self.vectors = embedder.encode(self.texts) if self.texts else np.zeros((0, 1))

    def __len__(self) -> int:
        return len(self.owner)

    @classmethod
    def load(cls, path: Path, embedder: Embedder) -> PathMemory:
        return cls(read_entries(path), embedder)

    def prior(self, question_vector: np.ndarray, *, exclude_id: str | None = None, k: int = 10,
              first_steps: Collection[StepTuple] | None = None) -> list[PriorChain]:
        """Relation sequences with their support among the `k` remembered questions
        nearest the question (nearest texts first, each with as many of its questions as
        the budget leaves), weighted by similarity: a support of 1 means every one of
        them was answered by that sequence. Best first.

        `first_steps`: the steps the topic entities can take. A remembered question counts
        only through sequences that start with one of them ("which movies did X direct"
        says nothing about X = a film, which no `directed_by` edge points into), so the
        nearest questions that apply decide. The question `exclude_id` does not count
        (leave-one-out)."""
        if not self.texts:
            return []
        own = self.owner.get(exclude_id) if exclude_id is not None else None
        allowed = None if first_steps is None else {(r, bool(f)) for r, f in first_steps}
        similarity = self.vectors @ question_vector
        support: dict[ChainKey, float] = {}
        weight_total, budget = 0.0, k
        for index in np.argsort(-similarity, kind="stable"):
            if budget <= 0 or similarity[index] <= 0:
                break
            answered = Counter(self.answered[index])
            if own is not None and own[0] == self.texts[index]:
                answered[own[1]] -= 1
            usable: Counter[frozenset[ChainKey]] = Counter()
            for chains, count in answered.items():
                kept = frozenset(c for c in chains if allowed is None or c[0] in allowed)
                if kept and count > 0:
                    usable[kept] += count
            size = sum(usable.values())
            if not size:
                continue
            taken = min(budget, size)
            budget -= taken
            weight = float(similarity[index]) * taken
            weight_total += weight
            for chains, count in usable.items():
                for chain in chains:
                    support[chain] = support.get(chain, 0.0) + weight * count / size
        ranked = sorted(support.items(), key=lambda kv: -kv[1])
        return [PriorChain(steps=list(key), weight=round(w / weight_total, 4), depth=self.depths[key])
                for key, w in ranked if w > 0]


def _key(path: list[StepTuple]) -> ChainKey:
    return tuple((r, bool(f)) for r, f in path)


def read_entries(path: Path) -> list[MemoryEntry]:
    """Entries of a memory file (JSON Lines); a torn last line (a build killed mid-write)
    is ignored, any other bad line is an error naming it."""
    if not path.is_file():
        raise FileNotFoundError(f"no such path-memory file: {path}")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines_in:
        lines = lines_in.read().splitlines()
    entries = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entries.append(MemoryEntry.model_validate_json(line))
        except ValidationError as exc:
            if number == len(lines):
                break
            raise MalformedInput(str(path), number, f"not a path-memory entry: {exc.errors()[0]['msg']}") from exc
    return entries


def label_question(neighbours: NeighborCache, question: Question, gold: Gold, *, max_depth: int = 3,
                   max_frontier: int = 5_000) -> MemoryEntry:
    """The relation sequence from the question's topic entities whose end entities best
    match the gold answers (F1 over normalised names), all of them when several tie;
    a shorter sequence beats a longer one of the same F1. Stops at the first depth
    where one matches exactly. When the question set says how
    many hops a question takes (MetaQA's files do), only sequences of that depth count:
    "the directors of the films written by the writer of X" must not be learnt as the
    1-hop "writer of X" because X's writer directed too."""
    seeds = [t.id for t in question.topic_entities]
    wanted = {normalize(a) for a in gold.answers} - {""}
    masked = mask_question(question.text, [t.name or t.id for t in question.topic_entities])
    hops = question.meta.get("hops", "")
    exact = int(hops) if hops.isdigit() else None
    best: tuple[float, int] = (0.0, 0)
    tied: list[list[StepTuple]] = []
    best_depth = 0
    for depth in ([exact] if exact else range(1, max_depth + 1)):
        if not seeds or not wanted:
            break
        exploration = explore(neighbours, seeds, depth=depth, max_frontier=max_frontier)
        names = exploration.names
        for group in join_topics(exploration.groups, seeds):
            steps = [(s.relation, s.forward) for s in group.chain]
            group_depth = named_depth(steps, [list(h) for h in group.hops], names)
            if exact and group_depth != exact:
                continue
            found = {normalize(names.get(e) or "") for e in group.ends} - {""}
            hits = len(found & wanted)
            if not hits:
                continue
            rank = (round(2 * hits / (len(found) + len(wanted)), 6), -group_depth)
            if rank > best:
                best, tied, best_depth = rank, [steps], group_depth
            elif rank == best and steps not in tied:
                tied.append(steps)
        if best[0] >= 1.0:
            break
    return MemoryEntry(question_id=question.id, question=masked, paths=sorted(tied, key=len), depth=best_depth,
                       f1=round(best[0], 4))


def build_memory(neighbours: NeighborCache, questions: list[Question], gold: dict[str, Gold], out_path: Path, *,
                 max_depth: int = 3, min_f1: float = 0.5,
                 on_entry: Callable[[MemoryEntry], None] | None = None) -> list[MemoryEntry]:
    """Label each question and append its entry to `out_path` as it is made (a rerun
    skips questions already there). Entries whose best F1 is under `min_f1` keep no
    sequence: a path that reaches a few gold answers among many others teaches nothing."""
    done = {e.question_id: e for e in read_entries(out_path)} if out_path.exists() else {}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with open(out_path, "a", encoding="utf-8") as out:
        for question in questions:
            if question.id in done:
                continue
            entry = label_question(neighbours, question, gold[question.id], max_depth=max_depth)
            if entry.f1 < min_f1:
                entry = entry.model_copy(update={"paths": []})
            out.write(json.dumps(entry.model_dump(), ensure_ascii=False) + "\n")
            out.flush()
            done[question.id] = entry
            if on_entry:
                on_entry(entry)
    return [done[q.id] for q in questions if q.id in done]
