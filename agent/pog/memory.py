"""Path memory: which relation sequences answered questions like this one.

The small local model cannot rank paths, and sentence embeddings alone confuse depths
("what films did X act in" scores the 2-hop co-actor chain as high as the 1-hop one).
What does rank them is experience: a question set with gold answers (the dev split)
tells, for each question, which relation sequence from its topic entity reaches its
answers. The memory keeps only that: the question with its topic entities masked and
the sequence; never an answer. At run time the nearest remembered questions vote for
sequences, and fuzzy selection adds the vote to the embedding similarity.

A question never uses its own entry, nor the entries of its near-twins: entries carry
the question id and the question's group (`loaders.questions.question_group`: its
normalised text, or for CWQ the WebQSP question it was built from), and a question leaves
out its whole group. A memory built from a split can so be evaluated on that same split
as leave-one-group-out.
"""

from __future__ import annotations

import gzip
import json
import logging
import math
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from agent.answer_text import normalize
from agent.embeddings import DIMENSIONS, MODEL_ID, Embedder
from agent.linking import mention_span, relation_vocabulary
from agent.pog.candidates import asked_kind_words, asked_words, asks_for_siblings, named_depth, sibling_mismatch
from agent.pog.state import PoGState, PriorChain, StepTuple
from kg_store.errors import InputError
from kg_store.paths import NeighborCache, explore, join_topics
from loaders.collector import cyclic_gc_paused
from loaders.questions import Gold, Question, question_group
from loaders.records import MalformedInput

logger = logging.getLogger(__name__)

MASK = "X"
# How a synthesised memory is read (PathMemory._best_matches), set on MetaQA dev by how
# often the best path is the labelled one: how sharply scores become shares; how much the
# share of the question's words that a written question covers adds; what each hop
# beyond the first costs (a longer path's written questions contain the shorter ones').
# All three were run again on every development KG's tuning part: no other value tried
# won on every KG (a softer vote or a dearer hop lets a chain's middle win;
# results/2026-11-29/tuning-skipped).
SYNTHETIC_TEMPERATURE = 0.01
SYNTHETIC_WORD_WEIGHT = 0.3
SYNTHETIC_HOP_PENALTY = 0.02
SYNTHETIC_BACK_PENALTY = 0.05
# Costs of a sequence whose written questions ask for a kind of thing the question names
# but does not ask for ("what *types* are the *movies* written by X" is not answered by
# the movies), and of one that does not start with the relation the question names beside
# its topic ("the films *directed* by X were *written* by who"): word overlap cannot see
# either, and a 1-hop sequence's written question is all but contained in the question.
SYNTHETIC_KIND_PENALTY = 0.05
SYNTHETIC_FIRST_PENALTY = 0.05
# Two words are the same word for the kind test at this cosine ("films" - "movies" 0.87,
# "country" - "countries" 0.85; "types" - "movies" 0.31).
ALIKE_WORDS = 0.75
# Words that say nothing about a relation: left out of the word coverage.
_FUNCTION_WORDS = frozenset({
    "what", "which", "who", "whom", "whose", "where", "when", "how", "is", "are", "was", "were", "the", "a",
    "an", "of", "in", "on", "at", "to", "for", "by", "with", "as", "x", "did", "does", "do", "have", "has",
    "had", "their", "that", "this", "these", "those", "and", "or", "be", "been", "it", "its", "there",
    "also", "same", "share", "shares",
})
ChainKey = tuple[StepTuple, ...]


class MemoryEntry(BaseModel):
    question_id: str
    question: str  # topic entity names replaced by MASK
    group: str | None = None  # near-twins share it (loaders.questions.question_group)
    # Every relation sequence that reaches the gold answers best (a tie is common: one
    # person wrote and directed the film); empty when none does (kept so reruns skip it).
    paths: list[list[StepTuple]] = Field(default_factory=list)
    depth: int = 0
    f1: float = 0.0
    # Written by `kgqa memory synthesize` from the graph alone: no question or answer
    # behind it; `support` is the share of sampled entities that have the path.
    synthetic: bool = False
    support: float | None = None
    ends: str | None = None  # synthesised: the kind of thing the sequence ends at ("countries"), when named


def mask_question(text: str, names: Iterable[str | None], vocabulary: Collection[str] = frozenset()) -> str:
    """The question with each topic entity's name replaced (case-insensitive), so that
    questions of the same shape about different entities look alike. A name the question
    does not write out is masked where the question says it otherwise ("the uk", "the
    prophet mohammed" for "Muhammad": `linking.mention_span`, with the graph's relation
    words `vocabulary`)."""
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        masked = re.sub(re.escape(name), MASK, text, flags=re.IGNORECASE)
        if masked == text and (span := mention_span(text, name, vocabulary)) is not None:
            masked = text[: span[0]] + MASK + text[span[1]:]
        text = masked
    return text


def masked_question(state: PoGState) -> str:
    """The question with its topic entities masked, as question analysis wrote it (with the
    graph's relation words for mentions that are not the name); the names alone otherwise."""
    return state.get("masked_question") or mask_question(state["question"],
                                                         [t.name or t.id for t in state.get("topics") or []])


class PathMemory:
    """Remembered questions grouped by their masked text (MetaQA's 39k dev questions are
    526 texts): each text is embedded once, and supports each sequence in proportion to
    how many of its questions that sequence answered."""

    def __init__(self, entries: list[MemoryEntry], embedder: Embedder) -> None:
        # A synthesised memory (every entry synthetic) is read differently: see `prior`.
        self.synthetic = bool(entries) and all(e.synthetic for e in entries)
        # text -> how many of its questions were answered by each set of tied sequences
        answered: dict[str, Counter[frozenset[ChainKey]]] = {}
        self.depths: dict[ChainKey, int] = {}
        self.ends: dict[ChainKey, str] = {}  # what a synthesised sequence ends at (MemoryEntry.ends)
        self.owner: dict[str, tuple[str, frozenset[ChainKey]]] = {}
        self.groups: dict[str, list[str]] = {}  # group -> its questions' ids
        for entry in entries:
            if entry.paths:
                chains = frozenset(_key(p) for p in entry.paths)
                answered.setdefault(entry.question, Counter())[chains] += 1
                self.owner[entry.question_id] = (entry.question, chains)
                if entry.group is not None:
                    self.groups.setdefault(entry.group, []).append(entry.question_id)
                for chain in chains:
                    self.depths.setdefault(chain, entry.depth)
                    if entry.ends:
                        self.ends.setdefault(chain, entry.ends)
        # every sequence and each of its beginnings: a walk that leaves them reaches nothing known
        self.prefixes = {chain[:n] for chain in self.depths for n in range(1, len(chain) + 1)}
        self.texts = list(answered)
        self.answered = [answered[t] for t in self.texts]
        self.vectors = embedder.encode(self.texts) if self.texts else np.zeros((0, 1))
        self.embedder = embedder
        self.vocabulary: list[str] = []
        if self.synthetic:  # each written question's content words, as rows of one word matrix
            self.vocabulary = sorted({w for t in self.texts for w in content_words(t)})
            row = {w: i for i, w in enumerate(self.vocabulary)}
            self.word_rows = [[row[w] for w in content_words(t)] for t in self.texts]
            self.word_vectors = embedder.encode(self.vocabulary) if self.vocabulary else np.zeros((0, 1))
            # what each sequence's written questions ask for ("movies", "genre")
            self.asks_for: dict[ChainKey, frozenset[str]] = {}
            for text, chain_sets in zip(self.texts, self.answered, strict=True):
                for chain in {c for cs in chain_sets for c in cs}:
                    self.asks_for[chain] = self.asks_for.get(chain, frozenset()) | frozenset(asked_words(text))

    def __len__(self) -> int:
        return len(self.owner)

    @classmethod
    def load(cls, path: Path, embedder: Embedder) -> PathMemory:
        """The memory in `path`; its texts' embeddings come from its vectors file when one
        lies beside it (`write_vectors`), so loading it does not run the model."""
        stored = vectors_path(path)
        if stored.is_file():
            try:
                with np.load(stored) as vectors:
                    if str(vectors["model"]) == MODEL_ID:
                        embedder.remember([str(t) for t in vectors["texts"]], vectors["vectors"])
            except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:  # a cache: computing them is the fallback
                logger.warning("ignoring %s (%s): the memory's texts are embedded afresh", stored, exc)
        with cyclic_gc_paused():
            return cls(read_entries(path), embedder)

    def prior(self, question_vector: np.ndarray, *, exclude_id: str | None = None, exclude_group: str | None = None,
              k: int = 10, first_steps: Collection[StepTuple] | None = None, question: str = "",
              reachable: Collection[ChainKey] | None = None, first_relation: str | None = None) -> list[PriorChain]:
        """Relation sequences with their support among the `k` remembered questions
        nearest the question (nearest texts first, each with as many of its questions as
        the budget leaves), weighted by similarity: a support of 1 means every one of
        them was answered by that sequence. Best first.

        `first_steps`: the steps the topic entities can take. A remembered question counts
        only through sequences that start with one of them ("which movies did X direct"
        says nothing about X = a film, which no `directed_by` edge points into), so the
        nearest questions that apply decide. The question `exclude_id` and every question
        of `exclude_group` do not count (leave-one-group-out).

        A synthesised memory reads `question` (the masked text) as well, only the
        sequences in `reachable` (those the topic entities have) when it is given, and
        prefers the sequences that start with `first_relation` (the relation the question
        names beside its topic, `PathScorer.first_relation`) when it is given."""
        if not self.texts:
            return []
        allowed = None if first_steps is None else {(r, bool(f)) for r, f in first_steps}
        if self.synthetic:  # no question stands behind an entry: nothing to leave out
            return self._best_matches(question_vector, question, allowed, reachable, first_relation)
        left_out = self._left_out(exclude_id, exclude_group)
        similarity = self.vectors @ question_vector
        support: dict[ChainKey, float] = {}
        weight_total, budget = 0.0, k
        for index in np.argsort(-similarity, kind="stable"):
            if budget <= 0 or similarity[index] <= 0:
                break
            answered = Counter(self.answered[index])
            answered.subtract(left_out.get(self.texts[index], Counter()))
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
        # Tied sequences (one person wrote and directed the film) share a support: ordered by
        # the sequence, not by a frozenset's iteration, which changes with each process's
        # string hashing and decided which of them the top of the prior kept.
        ranked = sorted(support.items(), key=lambda kv: (-kv[1], kv[0]))
        return [PriorChain(steps=list(key), weight=round(w / weight_total, 4), depth=self.depths[key])
                for key, w in ranked if w > 0]

    def reachable(self, neighbours: NeighborCache, seeds: list[str], *, depth: int,
                  max_frontier: int) -> set[ChainKey]:
        """The sequences of this memory that the topic entities `seeds` have, ending at a
        named entity: a synthesised memory is written for every kind of entity, and most
        of its sequences lead nowhere from a given topic. Only the memory's own
        beginnings are walked, so a hub costs what the memory knows, not what it has."""
        # A chain of Steps (named tuples) equals and hashes as the memory's plain tuples.
        exploration = explore(neighbours, seeds, depth=depth, max_frontier=max_frontier,
                              beam=lambda groups, _: [g for g in groups if g.chain in self.prefixes])
        names = exploration.names
        return {g.chain for g in exploration.groups if any(names.get(e) for e in g.hops[-1])}

    def _left_out(self, question_id: str | None, group: str | None) -> dict[str, Counter[frozenset[ChainKey]]]:
        """What the left-out questions contributed to each text: the question itself and
        its group's other questions."""
        ids = {question_id, *self.groups.get(group, ())} if group is not None else {question_id}
        removed: dict[str, Counter[frozenset[ChainKey]]] = {}
        for left_out in ids & self.owner.keys():
            text, chains = self.owner[left_out]
            removed.setdefault(text, Counter())[chains] += 1
        return removed

    def _best_matches(self, question_vector: np.ndarray, question: str, allowed: set[StepTuple] | None,
                      reachable: Collection[ChainKey] | None, first_relation: str | None) -> list[PriorChain]:
        """A synthesised memory's prior: each sequence scores its best-matching written
        question, less a cost per hop, and the scores become shares by a sharp softmax.
        A written question's match is its embedding similarity to the question plus the
        share of the question's content words it covers (each word's best cosine to its
        words): sentence embeddings hardly see the one word that asks for a third hop
        ("what *genres* are the movies starred by actors in X").

        Voting by the k nearest texts, as for questions people asked, does not work here:
        every sequence has several written questions and their similarities to a real
        question are close together (0.85-0.95), so k neighbours spread the vote.
        For the same reason a sequence pays for what the words cannot see: asking for a
        kind the question names but does not ask for, and starting elsewhere than at
        `first_relation`."""
        def applies(chain: ChainKey) -> bool:
            return (allowed is None or chain[0] in allowed) and (reachable is None or chain in reachable)

        candidates = [i for i, answered in enumerate(self.answered) if any(applies(c) for cs in answered for c in cs)]
        if not candidates:
            return []
        similarity = self.vectors[candidates] @ question_vector
        asked = content_words(question)
        if asked:  # question words x vocabulary: each question word's cosine to each written word
            word_similarity = self.embedder.encode(asked) @ self.word_vectors.T
            similarity += SYNTHETIC_WORD_WEIGHT * np.array(
                [word_similarity[:, self.word_rows[i]].max(axis=1).mean() if self.word_rows[i] else 0.0
                 for i in candidates])
        best: dict[ChainKey, float] = {}
        siblings = asks_for_siblings(question)
        for index, score in zip(candidates, similarity, strict=True):
            for chains in self.answered[index]:
                for chain in chains:
                    scored = float(score) - SYNTHETIC_HOP_PENALTY * (self.depths[chain] - 1)
                    if sibling_mismatch(chain, siblings):
                        scored -= SYNTHETIC_BACK_PENALTY
                    if applies(chain) and scored > best.get(chain, -math.inf):
                        best[chain] = scored
        for chain in self._asks_for_another_kind(question, best):
            best[chain] -= SYNTHETIC_KIND_PENALTY
        for chain in self._ending_elsewhere(question, best):
            del best[chain]
        for chain in best:
            if first_relation is not None and chain[0][0] != first_relation:
                best[chain] -= SYNTHETIC_FIRST_PENALTY
        top = max(best.values())
        shares = {chain: math.exp((score - top) / SYNTHETIC_TEMPERATURE) for chain, score in best.items()}
        total = sum(shares.values())
        ranked = sorted(shares.items(), key=lambda kv: (-kv[1], kv[0]))  # ties by sequence, as in `prior`
        return [PriorChain(steps=list(key), weight=round(w / total, 4), depth=self.depths[key])
                for key, w in ranked if w / total >= 1e-4]

    def _asks_for_another_kind(self, question: str, chains: Collection[ChainKey]) -> set[ChainKey]:
        """The sequences whose written questions ask for a kind of thing that the question
        names elsewhere than where it says what it asks for: "what types are the movies
        written by X" names the movies, which `written_by` back gives, and asks for types.
        A sequence that also asks for the question's kind is kept ("films" asks for movies)."""
        asked = asked_words(question)
        named = [w for w in content_words(question) if w not in asked]
        kinds = sorted({w for c in chains for w in self.asks_for.get(c, ())})
        if not asked or not named or not kinds:
            return set()
        answers_it = self._alike(kinds, asked)
        named_only = self._alike(kinds, named) - answers_it
        return {c for c in chains if self.asks_for.get(c, frozenset()) & named_only
                and not self.asks_for[c] & answers_it}

    def _ending_elsewhere(self, question: str, chains: Collection[ChainKey]) -> set[ChainKey]:
        """The sequences that end at another kind of thing than the question asks for,
        when some sequence ends at that kind: "which *elements* come from the places
        where X made discoveries" is not answered by the places, however alike "where did
        the elements X discovered come from" reads. The kinds are the graph's, named at
        synthesis (`MemoryEntry.ends`); a sequence whose ends have no name stays."""
        asked = asked_words(question)
        kinds = sorted({self.ends[c] for c in chains if c in self.ends})
        if not asked or not kinds:
            return set()
        answering = self._alike(kinds, asked)
        return {c for c in chains if c in self.ends and self.ends[c] not in answering} if answering else set()

    def last_steps_of_asked_kind(self, question: str) -> list[StepTuple]:
        """The steps that reach the kind of thing the question asks for (`asked_kind_words`),
        by the graph's kinds as named at synthesis (`MemoryEntry.ends`): "name the *people*
        whose packages require X" and "who wrote ..." ask for what `author` reaches. Empty
        where the question names no such kind."""
        asked = asked_kind_words(question)
        kinds = sorted(set(self.ends.values()))
        if not asked or not kinds:
            return []
        answering = self._alike(kinds, asked)
        return sorted({chain[-1] for chain, kind in self.ends.items() if kind in answering})

    def _alike(self, kinds: list[str], words: list[str]) -> set[str]:
        """The kind words that are the same word as one of `words` (`ALIKE_WORDS`)."""
        alike = (self.embedder.encode(kinds) @ self.embedder.encode(words).T).max(axis=1) >= ALIKE_WORDS
        return {kind for kind, yes in zip(kinds, alike, strict=True) if yes}


def vectors_path(path: Path) -> Path:
    """Where a memory's precomputed embeddings lie: beside it, `M.jsonl.gz` -> `M.vectors.npz`."""
    stem = next((path.name[: -len(s)] for s in (".jsonl.gz", ".jsonl") if path.name.endswith(s)), path.stem)
    return path.with_name(f"{stem}.vectors.npz")


def write_vectors(path: Path, embedder: Embedder) -> Path:
    """Store the embeddings of the memory in `path` beside it (`vectors_path`); returns
    where. Loading the bundled MetaQA memory on a fresh machine otherwise runs the model
    over its 526 texts before the first answer."""
    memory = PathMemory(read_entries(path), embedder)  # embeds its texts: kept, not embedded again
    embedded = [memory.vectors] if memory.texts else []
    embedded += [memory.word_vectors] if memory.vocabulary else []
    vectors = np.vstack(embedded) if embedded else np.zeros((0, DIMENSIONS), dtype=np.float32)
    target = vectors_path(path)
    with target.open("wb") as out:
        np.savez_compressed(out, model=np.array(MODEL_ID), texts=np.array(memory.texts + memory.vocabulary, dtype=str),
                            vectors=vectors)
    return target


def content_words(text: str) -> list[str]:
    """The words of `text` that can name a relation or a kind, in order, once each."""
    return list(dict.fromkeys(w for w in re.findall(r"[a-z]+", text.lower()) if w not in _FUNCTION_WORDS))


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
    masked = mask_question(question.text, [t.name or t.id for t in question.topic_entities],
                           relation_vocabulary(neighbours.store))
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
    return MemoryEntry(question_id=question.id, question=masked, group=question_group(question),
                       paths=sorted(tied, key=len), depth=best_depth, f1=round(best[0], 4))


def build_memory(neighbours: NeighborCache, questions: list[Question], gold: dict[str, Gold], out_path: Path, *,
                 max_depth: int = 3, min_f1: float = 0.5, exclude_groups: Collection[str] = frozenset(),
                 on_entry: Callable[[MemoryEntry], None] | None = None) -> list[MemoryEntry]:
    """Label each question and append its entry to `out_path` as it is made (a rerun
    skips questions already there). Entries whose best F1 is under `min_f1` keep no
    sequence: a path that reaches a few gold answers among many others teaches nothing.
    Questions of `exclude_groups` (the groups of questions the memory will be evaluated
    on) are not learnt; a file that already holds one is refused, not used."""
    done = {e.question_id: e for e in read_entries(out_path)} if out_path.exists() else {}
    leaked = [e.question_id for e in done.values() if e.group in exclude_groups]
    if leaked:
        raise InputError(f"{out_path} already holds {len(leaked)} questions of the excluded groups "
                         f"(first: {leaked[0]}); build into a new file")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with open(out_path, "a", encoding="utf-8") as out:
        for question in questions:
            if question.id in done or question_group(question) in exclude_groups:
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
