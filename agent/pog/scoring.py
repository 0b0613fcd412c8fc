"""Fuzzy selection's score of a path, from embeddings and graph structure, not the LLM.

    score = w.question  * cos(question, relations of the path)
          + w.indicator * cos(LLM indicator, relations of the path)
          + w.memory    * path-memory vote for the path's relation sequence (w.synthetic_memory
                          for a synthesised memory)
          + w.depth     * [path depth == the depth a path memory predicts]
          - w.length    * (path depth - 1)
          - w.unnamed   * steps whose relation the question does not name (by its letters, or a
                          synonym: word embeddings at least w.synonym alike)
          - w.missing   * words of the question that name a relation (among the candidates') where the
                          path walks none of the relations they name
          - w.first     * [the path's first step is not the relation the question names beside its
                           topic, or as what the topic shares (`paths.topic_relation`)]
          - w.back      * [the path ends among the topic's siblings and the question does
                           not ask for siblings, or the question asks and it never walks back]

Topic entity names are masked out of the question and indicator, and paths are embedded
without entity names (`paths.chain_text`), so the similarity is about relations only and
the vectors of relation sequences are shared (and cached) across questions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from agent.embeddings import Embedder
from agent.pog.config import ScoreWeights
from agent.pog.memory import MASK, mask_question, masked_question
from agent.pog.paths import (
    asks_for_siblings,
    chain_text,
    may_name_a_relation,
    named_depth,
    question_tokens,
    relation_naming_words,
    sibling_mismatch,
    topic_relation,
    word_names_relation,
)
from agent.pog.state import PathCandidate, PoGState, PriorChain, StepTuple
from kg_store.paths import PathGroup

ChainKey = tuple[StepTuple, ...]


def chain_key(steps: Sequence[Sequence]) -> ChainKey:
    return tuple((str(r), bool(f)) for r, f in steps)


class PathScorer:
    def __init__(self, embedder: Embedder, weights: ScoreWeights, question: str, indicator: str | None,
                 prior: Sequence[PriorChain], predicted_depth: int | None) -> None:
        self.embedder, self.weights, self.predicted_depth = embedder, weights, predicted_depth
        texts = [question] + ([indicator] if indicator else [])
        vectors = embedder.encode(texts)
        self.question_vector = vectors[0]
        self.indicator_vector = vectors[1] if indicator else None
        self.prior = {chain_key(p.steps): p.weight for p in prior}
        self.asks_for_siblings = asks_for_siblings(question)
        tokens = question_tokens(question)
        self.words = [t.lower() for t in tokens]
        masks = [i for i, t in enumerate(tokens) if t == MASK]
        self.topic_at = masks[0] if len(masks) == 1 else None  # one topic mention: the first-step cue
        self._naming: dict[str, frozenset[int]] = {}
        self._may_name = [i for i, w in enumerate(self.words) if may_name_a_relation(w)]
        self._word_vectors: np.ndarray | None = None  # of the words at `_may_name`, encoded on first need

    def naming_positions(self, relation: str) -> frozenset[int]:
        """Where the question names the relation: the positions of its words that name it by
        their letters (`paths.word_names_relation`) or as a synonym, a word whose embedding
        is close to one of the relation's words ("wrote" and "penned" for `written_by`)."""
        found = self._naming.get(relation)
        if found is None:
            words = relation_naming_words(relation)
            found = self._naming[relation] = frozenset(
                i for i, w in enumerate(self.words) if word_names_relation(w, words)) | self._synonyms_of(words)
        return found

    def named(self, relation: str) -> bool:
        return bool(self.naming_positions(relation))

    def first_relation(self, relations: Iterable[str]) -> str | None:
        """Of `relations`, the one a path should walk first: the one the question names
        beside its topic or as what the topic shares (`paths.topic_relation`); None unless
        the topic is mentioned once and one relation wins alone."""
        if self.topic_at is None:
            return None
        named = sorted(r for r in set(relations) if self.named(r))
        return topic_relation(self.words, {r: self.naming_positions(r) for r in named}, self.topic_at)

    def _synonyms_of(self, relation_words: list[str]) -> frozenset[int]:
        if not relation_words or not self._may_name:
            return frozenset()
        if self._word_vectors is None:
            self._word_vectors = self.embedder.encode([self.words[i] for i in self._may_name])
        close = (self._word_vectors @ self.embedder.encode(relation_words).T >= self.weights.synonym).any(axis=1)
        return frozenset(self._may_name[k] for k in np.flatnonzero(close))

    @classmethod
    def for_state(cls, embedder: Embedder, weights: ScoreWeights, state: PoGState, *,
                  synthetic_memory: bool = False) -> PathScorer:
        """The scorer of one question's paths; a synthesised memory's prior votes with
        `weights.synthetic_memory`."""
        if synthetic_memory:
            weights = weights.model_copy(update={"memory": weights.synthetic_memory})
        names = [t.name or t.id for t in state.get("topics") or []]
        indicator = state.get("indicator")
        # Only a path memory's depth earns the bonus: the small model's own guess is too
        # often deeper than the question (MetaQA dev: 2 or 3 for most 1-hop questions), and
        # rewarding it ranked the longer paths first.
        depth = state.get("predicted_depth") if state.get("depth_source") == "memory" else None
        return cls(embedder, weights, masked_question(state),
                   mask_question(indicator, names) if indicator and indicator != state["question"] else None,
                   state.get("path_prior") or [], depth)

    def score(self, items: Sequence[tuple[ChainKey, dict[str, list[StepTuple]], int]]) -> list[dict[str, float]]:
        """Score parts of each (relation sequence, joins, depth), with their weighted sum as "total"."""
        if not items:
            return []
        vectors = self.embedder.encode([chain_text(steps, joins) for steps, joins, _ in items])
        to_question = vectors @ self.question_vector
        to_indicator = vectors @ self.indicator_vector if self.indicator_vector is not None else np.zeros(len(items))
        w = self.weights
        # The relations the question names, among those the candidates walk, and of them the
        # one a path should walk first.
        asked = {r for steps, _, _ in items for r, _ in steps if self.named(r)} if w.missing or w.first else set()
        # Counted by the words that name them: "study" names four of Freebase's education
        # relations, and a path that left them all out paid for four where the question said one.
        asked_words = frozenset().union(*(self.naming_positions(r) for r in asked))
        first = self.first_relation(asked) if w.first else None
        scored = []
        for i, (steps, _, depth) in enumerate(items):
            parts = {"question": float(to_question[i]), "indicator": float(to_indicator[i]),
                     "memory": self.prior.get(steps, 0.0),
                     "depth": float(self.predicted_depth is not None and depth == self.predicted_depth),
                     "back": float(sibling_mismatch(steps, self.asks_for_siblings)),
                     "unnamed": float(sum(not self.named(r) for r, _ in steps)),
                     "missing": float(len(asked_words.difference(*(self.naming_positions(r) for r, _ in steps)))),
                     "first": float(first is not None and steps[0][0] != first)}
            parts["total"] = (w.question * parts["question"] + w.indicator * parts["indicator"]
                              + w.memory * parts["memory"] + w.depth * parts["depth"] - w.length * (depth - 1)
                              - w.back * parts["back"] - w.unnamed * parts["unnamed"] - w.missing * parts["missing"]
                              - w.first * parts["first"])
            scored.append({k: round(v, 4) for k, v in parts.items()})
        return scored

    def rank(self, candidates: Sequence[PathCandidate]) -> list[PathCandidate]:
        """The candidates with their scores set, best first (ties keep their order)."""
        parts = self.score([(chain_key(c.steps), c.joins, c.depth) for c in candidates])
        scored = [c.model_copy(update={"score": p["total"], "score_parts": p}) for c, p in zip(candidates, parts, strict=True)]
        return sorted(scored, key=lambda c: -c.score)

    def beam(self, groups: list[PathGroup], names: dict[str, str | None], keep: int) -> list[PathGroup]:
        """The `keep` best groups of one exploration hop: the ones worth extending."""
        if len(groups) <= keep:
            return groups
        items = []
        for g in groups:
            steps = chain_key((s.relation, s.forward) for s in g.chain)
            items.append((steps, {}, named_depth(steps, [list(h) for h in g.hops], names)))
        totals = [p["total"] for p in self.score(items)]
        order = sorted(range(len(groups)), key=lambda i: -totals[i])
        return [groups[i] for i in order[:keep]]
