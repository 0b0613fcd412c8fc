"""KGQA metrics in the RoG / GNN-RAG convention, so figures compare with published ones.

Names are normalised by `agent.answer_text.normalize` (the store's own normalisation: lowercase,
accents and punctuation gone, so "Amelie" is "Amélie"; then the articles a/an/the dropped).
A predicted answer *matches* a gold answer when they are the same name once normalised,
or the prediction is a list ("the Eiffel Tower, Paris") with the gold as one whole item:
whole names at token boundaries, so gold `r` never matches "French" and gold "Music"
never matches "The Music Lovers" (RoG's bare substring `match` counts both). PoG's own
substring check over the model's whole output is kept apart, labelled lenient.
Every metric is per question; averages use the full question count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agent.answer_text import normalize

_LIST_SEPARATORS = re.compile(r"[,;|/\n]")


def matches(prediction: str, gold: str) -> bool:
    """The same name once normalised, or the gold as one whole item of a listed
    prediction (never an empty gold)."""
    gold_n = normalize(gold)
    if not gold_n:
        return False
    return gold_n == normalize(prediction) or any(gold_n == normalize(part) for part in _LIST_SEPARATORS.split(prediction))


def hits_at_1(predictions: Sequence[str], golds: Iterable[str]) -> float:
    """1 when the first predicted answer matches some gold answer."""
    return float(bool(predictions) and any(matches(predictions[0], g) for g in golds))


def hit(predictions: Sequence[str], golds: Iterable[str]) -> float:
    """1 when some predicted answer matches some gold answer."""
    return float(any(matches(p, g) for p in predictions for g in golds))


def f1(predictions: Sequence[str], golds: Sequence[str]) -> float:
    """F1 of the predicted list against the gold list.

    precision: share of predicted answers that match a gold answer;
    recall: share of gold answers matched by some predicted answer. (RoG's own code
    divides matched golds by the number of predictions, which can exceed 1 when one
    prediction names several golds; this keeps both in [0, 1].)
    """
    if not predictions or not golds:
        return 0.0
    precision = sum(any(matches(p, g) for g in golds) for p in predictions) / len(predictions)
    recall = sum(any(matches(p, g) for p in predictions) for g in golds) / len(golds)
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def covered(retrieved_names: Iterable[str], golds: Iterable[str]) -> float:
    """Retrieval coverage for one question: a gold answer is among the retrieved
    entities (LLM-free; KG-Scout's "answer present"). Exact after normalisation."""
    retrieved = {normalize(n) for n in retrieved_names}
    return float(any(normalize(g) in retrieved for g in golds))


def lenient_match(raw_output: str, golds: Iterable[str]) -> float:
    """PoG's check_answer, reported separately and labelled: a normalised gold answer
    appears anywhere in the model's whole output, reasoning included, even inside a word."""
    output = normalize(raw_output)
    return float(any(normalize(g) and normalize(g) in output for g in golds))


def answer_scores(predictions: Sequence[str], golds: Sequence[str], raw_output: str) -> dict[str, float]:
    """Every metric that needs only the answer: what a results row stores, and what
    `kgqa table` recomputes from a stored row."""
    return {"hits1": hits_at_1(predictions, golds), "hit": hit(predictions, golds), "f1": f1(predictions, golds),
            "lenient_em": lenient_match(raw_output, golds)}
