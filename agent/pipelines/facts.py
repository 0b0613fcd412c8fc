"""A subgraph as lines of evidence for a prompt.

Freebase joins many facts through unnamed CVT nodes (`actor -film.actor.film-> CVT
-film.performance.film-> film`). As two separate triples each says "Unnamed Entity"
and neither says anything alone, so every pair of edges through an unnamed node
becomes one line, in PoG's path format: `Tom Hanks -> film.actor.film -> Unnamed Entity
-> film.performance.film -> Forrest Gump`. Edges between named entities stay triples.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

from kg_store import UNNAMED, Subgraph, Triple

# A CVT with more edges than this in the subgraph is a hub-like node; pairing all its
# edges would flood the candidate list, so its edges are kept as single triples.
MAX_CVT_EDGES = 12


@dataclass(frozen=True, slots=True)
class Fact:
    text: str
    triples: tuple[Triple, ...]
    entities: tuple[str, ...]  # ids of the named entities the line mentions


def triple_text(triple: Triple, names: dict[str, str | None]) -> str:
    """`Forrest Gump -> film.film.directed_by -> Robert Zemeckis` (unnamed nodes as PoG writes them)."""
    return f"{names.get(triple.head) or UNNAMED} -> {triple.relation} -> {names.get(triple.tail) or UNNAMED}"


def facts_of(subgraph: Subgraph) -> list[Fact]:
    names = subgraph.names

    def label(node: str) -> str:
        return names.get(node) or UNNAMED

    def named(*nodes: str) -> tuple[str, ...]:
        return tuple(n for n in nodes if names.get(n))

    through: dict[str, list[Triple]] = defaultdict(list)  # unnamed node -> its edges
    facts: list[Fact] = []
    for triple in subgraph.triples:
        head_named, tail_named = bool(names.get(triple.head)), bool(names.get(triple.tail))
        if head_named == tail_named:  # named-named, or an edge between two CVTs
            facts.append(Fact(triple_text(triple, names), (triple,), named(triple.head, triple.tail)))
        else:
            through[triple.tail if head_named else triple.head].append(triple)

    for node, edges in through.items():
        if len(edges) < 2 or len(edges) > MAX_CVT_EDGES:
            facts.extend(Fact(triple_text(t, names), (t,), named(t.head, t.tail)) for t in edges)
            continue
        # Edges into the CVT first, so the common shape reads subject -> ... -> object.
        edges = sorted(edges, key=lambda t: t.tail != node)
        for first, second in combinations(edges, 2):
            start = first.head if first.tail == node else first.tail
            end = second.tail if second.head == node else second.head
            into = f"{label(start)} -> {first.relation} -> " if first.tail == node else f"{label(start)} <- {first.relation} <- "
            out = f" -> {second.relation} -> {label(end)}" if second.head == node else f" <- {second.relation} <- {label(end)}"
            facts.append(Fact(into + UNNAMED + out, (first, second), named(start, end)))
    return facts
