"""KG-Scout's reward for a selection of triples (thesis §3.3.3), weights 2 / 4 / 1 / 3:

    presence     share of the answers that are the head or tail of a selected triple
    connectivity max over (topic, answer) pairs of max(0, 1 - lambda * (d - 1)), d = hops
                 between them in the selected triples (lambda 0.2: 1 hop 1.0, 2 hops 0.8 ...)
    efficiency   max over pairs of 1 / (1 + d)
    coverage     max over pairs and over the shortest paths between them in the candidate
                 triples (the ones the policy chose from) of the share of their hops selected

Paths are undirected, where the thesis' are directed: MetaQA's "what films did X act in"
walks `film -starred_actors-> X` backwards, and so do most Freebase questions; PoG walks
both ways, and "path exists" (the retriever metric) is undirected too. A topic entity that
is itself an answer counts for presence only.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kg_store import Triple

WEIGHTS = {"presence": 2.0, "connectivity": 4.0, "efficiency": 1.0, "coverage": 3.0}
LAMBDA = 0.2
MAX_PATHS = 64  # shortest paths kept per (topic, answer) pair for coverage


@dataclass(frozen=True)
class Reward:
    presence: float
    connectivity: float
    efficiency: float
    coverage: float

    @property
    def total(self) -> float:
        return sum(WEIGHTS[name] * getattr(self, name) for name in WEIGHTS)


Edge = frozenset[str]  # an undirected hop


def _adjacency(triples: Iterable[Triple]) -> dict[str, set[str]]:
    adjacency: dict[str, set[str]] = {}
    for head, _, tail in triples:
        if head != tail:
            adjacency.setdefault(head, set()).add(tail)
            adjacency.setdefault(tail, set()).add(head)
    return adjacency


def _distances(adjacency: dict[str, set[str]], source: str) -> dict[str, int]:
    distance = {source: 0}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for nxt in adjacency.get(node, ()):
            if nxt not in distance:
                distance[nxt] = distance[node] + 1
                queue.append(nxt)
    return distance


def shortest_paths(triples: Sequence[Triple], topics: Iterable[str], answers: Iterable[str],
                   limit: int = MAX_PATHS) -> list[list[Edge]]:
    """Every shortest path (as its hops) from a topic entity to an answer in `triples`, at
    most `limit` per pair: what coverage measures a selection against."""
    adjacency = _adjacency(triples)
    paths: list[list[Edge]] = []
    answers = set(answers)
    for topic in dict.fromkeys(topics):
        if topic not in adjacency:
            continue
        distance = _distances(adjacency, topic)
        for answer in answers - {topic}:
            if answer not in distance:
                continue
            found: list[list[Edge]] = []
            _walk_back(adjacency, distance, topic, answer, [], found, limit)
            paths.extend(found)
    return paths


def _walk_back(adjacency: dict[str, set[str]], distance: dict[str, int], topic: str, node: str,
               suffix: list[Edge], found: list[list[Edge]], limit: int) -> None:
    """Append to `found` the shortest paths from `topic` to `node` (at most `limit`), walking
    back from `node` along edges that come one step closer to the topic."""
    if len(found) >= limit:
        return
    if node == topic:
        found.append(suffix[::-1])
        return
    for previous in sorted(adjacency[node]):
        if distance.get(previous) == distance[node] - 1:
            _walk_back(adjacency, distance, topic, previous, [*suffix, frozenset((previous, node))], found, limit)


def reward(selected: Sequence[Triple], topics: Iterable[str], answers: set[str],
           reference_paths: Sequence[list[Edge]]) -> Reward:
    if not selected or not answers:
        return Reward(0.0, 0.0, 0.0, 0.0)
    adjacency = _adjacency(selected)
    present = answers & set(adjacency)
    shortest = None
    for topic in dict.fromkeys(topics):
        if topic in adjacency:
            distance = _distances(adjacency, topic)
            for answer in present - {topic}:
                if answer in distance and (shortest is None or distance[answer] < shortest):
                    shortest = distance[answer]
    selected_edges = {frozenset((t.head, t.tail)) for t in selected}
    coverage = max((sum(hop in selected_edges for hop in path) / len(path) for path in reference_paths if path),
                   default=0.0)
    return Reward(
        presence=len(present) / len(answers),
        connectivity=max(0.0, 1.0 - LAMBDA * (shortest - 1)) if shortest else 0.0,
        efficiency=1.0 / (1.0 + shortest) if shortest else 0.0,
        coverage=coverage,
    )
