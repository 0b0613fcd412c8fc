"""Path pooling (Wang et al. 2025, Algorithm 1): train-free smoothing of a triple scorer's
scores along paths of the retrieved triples' own graph.

1. The retrieved triples form a directed graph (head -> tail).
2. Path kernels: for each query entity e, the paths from e to every node it reaches and
   from every node that reaches e to e (Dijkstra shortest paths by default; BFS over all
   simple paths up to `max_length`; or `walks` random walks).
3. Each kernel's base score is the mean (or max) of its triples' scores; the triple at
   position i (1-based, in path order) gets base + s_min / (i * a), where s_min is the
   lowest score of the whole input.
4. A triple's pooled score is the maximum over the kernels that contain it; a triple on
   no kernel is a one-triple path of its own.

Readings where the paper is silent (and why): edges are directed, searched forward from
and backward to each query entity separately (so a triple joining two query entities is
on a kernel); Dijkstra's cost is (hops, -sum of scores) compared in that order (shortest
first, the better-scored of equal-length paths); a = 1; duplicate triples are the
caller's to remove. Scores must be positive for the positional term to favour early
positions (cosine similarities: use (1 + cos) / 2).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from kg_store import Triple

Search = Literal["dijkstra", "bfs", "random_walk"]
Pooling = Literal["mean", "max"]
Order = Literal["recency", "middle"]


@dataclass(frozen=True)
class PoolingOptions:
    search: Search = "dijkstra"
    pooling: Pooling = "mean"
    a: float = 1.0  # the positional constant; the paper leaves it open
    max_length: int = 4  # BFS and random walks: triples per path
    walks: int = 256  # random walks per direction
    seed: int = 0


# adjacency: node -> [(triple index, next node)]
Adjacency = dict[str, list[tuple[int, str]]]


def pool_scores(triples: Sequence[Triple], scores: Sequence[float], query_entities: Sequence[str],
                options: PoolingOptions = PoolingOptions()) -> list[float]:
    """The pooled score of each triple (same order as `triples`)."""
    n = len(triples)
    if n == 0:
        return []
    s_min = min(scores)
    forward: Adjacency = {}
    backward: Adjacency = {}
    for index, (head, _, tail) in enumerate(triples):
        if head != tail:  # a self-loop joins nothing; it stays a one-triple path
            forward.setdefault(head, []).append((index, tail))
            backward.setdefault(tail, []).append((index, head))
    best = [float("-inf")] * n
    reduce = (lambda values: sum(values) / len(values)) if options.pooling == "mean" else max
    for entity in dict.fromkeys(query_entities):
        for adjacency, reverse in ((forward, False), (backward, True)):
            if entity not in adjacency:
                continue
            for kernel in _kernels(entity, adjacency, scores, options):
                # a backward kernel is found from e outwards; in path order it runs towards e
                path = kernel[::-1] if reverse else kernel
                base = reduce([scores[i] for i in path])
                for position, index in enumerate(path, 1):
                    value = base + s_min / (position * options.a)
                    best[index] = max(best[index], value)
    return [b if b != float("-inf") else scores[i] + s_min / options.a for i, b in enumerate(best)]


def _kernels(source: str, adjacency: Adjacency, scores: Sequence[float], options: PoolingOptions) -> Iterator[list[int]]:
    """Kernels from `source` as lists of triple indices, nearest triple first."""
    if options.search == "dijkstra":
        yield from _shortest_path_kernels(source, adjacency, scores)
    elif options.search == "bfs":
        yield from _simple_path_kernels(source, adjacency, options.max_length)
    else:
        yield from _random_walk_kernels(source, adjacency, options)


def _shortest_path_kernels(source: str, adjacency: Adjacency, scores: Sequence[float]) -> Iterator[list[int]]:
    """Dijkstra from `source` with cost (hops, -sum of scores); one kernel per reached node:
    the triples of its shortest path. Ties go to the lower triple index (better rank)."""
    settled: dict[str, tuple[int, str] | None] = {}
    frontier: list[tuple[int, float, int, str, str | None]] = [(0, 0.0, -1, source, None)]
    kernels: dict[str, list[int]] = {}
    while frontier:
        hops, negative_sum, index, node, parent = heapq.heappop(frontier)
        if node in settled:
            continue
        settled[node] = (index, parent) if parent is not None else None
        if parent is not None:
            kernel = [*kernels.get(parent, []), index]
            kernels[node] = kernel
            yield kernel
        for next_index, next_node in adjacency.get(node, ()):
            if next_node not in settled:
                heapq.heappush(frontier, (hops + 1, negative_sum - scores[next_index], next_index, next_node, node))


def _simple_path_kernels(source: str, adjacency: Adjacency, max_length: int) -> Iterator[list[int]]:
    """Every simple path of up to `max_length` triples from `source` (each is a kernel)."""
    stack: list[tuple[str, list[int], frozenset[str]]] = [(source, [], frozenset([source]))]
    while stack:
        node, path, visited = stack.pop()
        if len(path) >= max_length:
            continue
        for index, next_node in adjacency.get(node, ()):
            if next_node not in visited:
                extended = [*path, index]
                yield extended
                stack.append((next_node, extended, visited | {next_node}))


def _random_walk_kernels(source: str, adjacency: Adjacency, options: PoolingOptions) -> Iterator[list[int]]:
    """`walks` uniform random walks of up to `max_length` triples that never revisit a
    node; every walk and each of its prefixes is a kernel."""
    rng = random.Random(f"{options.seed}:{source}")
    for _ in range(options.walks):
        node, path, visited = source, [], {source}
        while len(path) < options.max_length:
            steps = [(i, nxt) for i, nxt in adjacency.get(node, ()) if nxt not in visited]
            if not steps:
                break
            index, node = rng.choice(steps)
            visited.add(node)
            path.append(index)
            yield list(path)


def rerank(count: int, scores: Sequence[float], order: Order = "recency") -> list[int]:
    """Indices in prompt order. recency: best last (next to the question); middle: best at
    both ends, alternately head and tail, the weakest in the middle. Ties keep rank order."""
    ranked = sorted(range(count), key=lambda i: (-scores[i], i))
    if order == "recency":
        return ranked[::-1]
    head, tail = [], []
    for place, index in enumerate(ranked):
        (head if place % 2 == 0 else tail).append(index)
    return head + tail[::-1]


def merged_lines(triples: Sequence[Triple], names: dict[str, str | None] | None = None) -> list[str]:
    """The paper's prompt lines: `a -> r -> b`, and a triple whose head is the previous
    triple's tail continues that line (`a -> r -> b -> r2 -> c`). Entities compare by id
    and print by name. (The paper writes `->` without spaces; ours match every other
    prompt of the project.)"""
    names = names or {}
    lines: list[str] = []
    previous_tail: str | None = None
    for head, relation, tail in triples:
        label = names.get(tail) or tail
        if lines and head == previous_tail:
            lines[-1] += f" -> {relation} -> {label}"
        else:
            lines.append(f"{names.get(head) or head} -> {relation} -> {label}")
        previous_tail = tail
    return lines
