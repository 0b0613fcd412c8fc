"""KG-Scout's inputs for one question: the question subgraph's triples linearised and
embedded, the top `limit` by cosine to the question kept as candidates, each with its
relation phrase's embedding and the personalised PageRank of its head and tail (teleport
to the topic entities, on the whole subgraph)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agent.embeddings import Embedder
from kg_store import Triple
from kg_store.ids import relation_words

if TYPE_CHECKING:  # torch loads in ~1.5 s: only when a policy runs, not whenever the agent is imported
    import torch

_SEPARATORS = re.compile(r"[._/]+")


def relation_phrase(relation: str) -> str:
    """`location.country.languages_spoken` -> `location country languages spoken`; an IRI
    its local name's words (`rdfs:subClassOf` -> `sub class of`), as the agent reads it."""
    if "://" in relation:
        return relation_words(relation)
    return " ".join(_SEPARATORS.sub(" ", relation).split())


def linearise(triple: Triple, names: dict[str, str | None]) -> str:
    """The thesis' text of a triple: head, relation phrase and tail joined by spaces."""
    return f"{names.get(triple.head) or triple.head} {relation_phrase(triple.relation)} {names.get(triple.tail) or triple.tail}"


def personalised_pagerank(triples: Sequence[Triple], topics: Sequence[str]) -> dict[str, float]:
    """PageRank with restarts at the topic entities (alpha 0.85), head -> tail edges; empty
    when no topic entity is in the graph or the iteration does not converge."""
    import networkx as nx  # here: PoG imports this module for `linearise`, and networkx takes 0.15 s

    graph = nx.DiGraph()
    graph.add_edges_from((t.head, t.tail) for t in triples)
    seeds = {t: 1.0 for t in topics if t in graph}
    if not seeds:
        return {}
    try:
        return nx.pagerank(graph, alpha=0.85, personalization=seeds, max_iter=100, tol=1e-5)
    except nx.PowerIterationFailedConvergence:
        return {}


@dataclass
class Candidates:
    triples: list[Triple]  # the candidates, best cosine first
    cosine: np.ndarray  # (N,)
    question: np.ndarray  # (384,)
    triple_vectors: np.ndarray  # (N, 384)
    # Each distinct relation phrase's vector once, and each candidate's row in that table:
    # training holds every question's candidates in memory, and a question's 1,000
    # candidates share a few dozen relations.
    relation_table: np.ndarray  # (R, 384)
    relation_rows: np.ndarray  # (N,) int64
    ppr: np.ndarray  # (N, 2): head, tail

    def __len__(self) -> int:
        return len(self.triples)

    def tensors(self, device: str = "cpu") -> tuple[torch.Tensor, ...]:
        """The policy's inputs: question, triple vectors, relation vectors, PPR."""
        import torch

        question, triples, table, rows, ppr = (torch.from_numpy(a).to(device) for a in (
            self.question, self.triple_vectors, self.relation_table, self.relation_rows, self.ppr))
        return question, triples, table[rows], ppr


def candidates_for(question: str, triples: Sequence[Triple], names: dict[str, str | None], topics: Sequence[str],
                   embedder: Embedder, limit: int = 1000) -> Candidates:
    triples = list(dict.fromkeys(triples))
    vectors = embedder.encode([question, *(linearise(t, names) for t in triples)])
    cosine = vectors[1:] @ vectors[0]
    best = np.argsort(-cosine, kind="stable")[:limit]
    chosen = [triples[i] for i in best]
    phrases = sorted({relation_phrase(t.relation) for t in chosen})
    row_of = {phrase: row for row, phrase in enumerate(phrases)}
    dims = vectors.shape[1]
    ppr = personalised_pagerank(triples, topics)
    return Candidates(
        # Copies, not views: a view of `vectors` would keep all of the subgraph's
        # embeddings (up to 5,000 rows) alive for as long as the candidates are.
        triples=chosen, cosine=cosine[best].astype(np.float32), question=vectors[0].copy(),
        triple_vectors=vectors[1:][best] if len(best) else np.zeros((0, dims), np.float32),
        relation_table=embedder.encode(phrases) if phrases else np.zeros((0, dims), np.float32),
        relation_rows=np.array([row_of[relation_phrase(t.relation)] for t in chosen], dtype=np.int64),
        ppr=np.array([[ppr.get(t.head, 0.0), ppr.get(t.tail, 0.0)] for t in chosen], dtype=np.float32).reshape(-1, 2),
    )
