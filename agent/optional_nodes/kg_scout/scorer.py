"""A trained KG-Scout policy as the triple pipeline's scorer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from agent.embeddings import Embedder
from agent.optional_nodes.kg_scout.features import candidates_for
from agent.optional_nodes.kg_scout.model import PolicyNetwork
from agent.optional_nodes.kg_scout.training import load_checkpoint
from kg_store import Triple


class KGScoutScorer:
    """Scores the cosine pre-filter's candidates with the policy (sigmoid of its score,
    in (0, 1), as path pooling needs); triples outside the candidates score 0."""

    name = "kg-scout"

    def __init__(self, model: PolicyNetwork, embedder: Embedder, candidates: int = 1000) -> None:
        self.model, self.embedder, self.candidates = model, embedder, candidates

    @classmethod
    def load(cls, path: Path, embedder: Embedder) -> KGScoutScorer:
        model, saved = load_checkpoint(path)
        return cls(model, embedder, saved["config"]["candidates"])

    def score(self, question: str, triples: Sequence[Triple], names: dict[str, str | None],
              topics: Sequence[str]) -> np.ndarray:
        scores = np.zeros(len(triples), dtype=np.float32)
        candidates = candidates_for(question, triples, names, topics, self.embedder, self.candidates)
        if not len(candidates):
            return scores
        with torch.no_grad():
            policy = self.model(*candidates.tensors())
        where = {t: i for i, t in enumerate(triples)}
        for triple, value in zip(candidates.triples, torch.sigmoid(policy).numpy(), strict=True):
            scores[where[triple]] = value
        return scores
