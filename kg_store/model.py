"""Plain data types the store protocol speaks. Ids are strings (`m.0abc`, `Tom Hanks`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

Direction = Literal["out", "in"]
UNNAMED = "Unnamed Entity"  # PoG's label for nodes without a name (Freebase CVTs)
# A literal value reached as a neighbour (`GraphStore.neighbors(values=True)`) is a node whose
# id is this mark and the value: ids of entities cannot hold control characters
# (`kg_store.ids.check_id`), so no entity's id is a value's, and no store is asked about one.
VALUE_MARK = "\x1f"


def value_node(value: str) -> str:
    """The id of the node for a literal value: one node per value, as in RDF."""
    return VALUE_MARK + value


def value_edge(source: str, relation: str, value: str) -> Edge:
    """`source` holding a literal value, as an out-edge to the value's node, named by it."""
    return Edge(source, relation, value_node(value), value, "out")


def is_value_node(node: str) -> bool:
    return node.startswith(VALUE_MARK)


def value_of(node: str) -> str:
    """The literal a value node stands for (`value_node`'s inverse)."""
    return node[len(VALUE_MARK):]


def shown_id(node: str) -> str:
    """An id as pages and terminals show it: a value node's as a quoted literal, since its
    mark is a control character."""
    return f'"{value_of(node)}"' if is_value_node(node) else node


class Edge(NamedTuple):  # a tuple: walks build hundreds of thousands
    """One neighbour of `source`, in PoG's shape.

    direction "out": source -relation-> neighbor (PoG calls this "tail");
    direction "in":  neighbor -relation-> source (PoG's "head").
    """

    source: str
    relation: str
    neighbor: str
    neighbor_name: str | None
    direction: Direction

    @property
    def neighbor_label(self) -> str:
        return self.neighbor_name or UNNAMED

    def as_triple(self) -> Triple:
        if self.direction == "out":
            return Triple(self.source, self.relation, self.neighbor)
        return Triple(self.neighbor, self.relation, self.source)


class Triple(NamedTuple):  # a tuple: millions are built during loads, cheaply
    head: str
    relation: str
    tail: str


@dataclass(slots=True)
class Neighborhood:
    """Result of one batched neighbour query."""

    edges: dict[str, list[Edge]]
    # Entities whose edges were cut at the per-entity cap (hub nodes).
    truncated: set[str] = field(default_factory=set)
    # The literal values (as out-edges to value nodes) a backend met while reading the edges
    # (the embedded store's scan sees them); None where it did not look.
    values: dict[str, list[Edge]] | None = None

    def all_edges(self) -> list[Edge]:
        return [e for es in self.edges.values() for e in es]


MatchKind = Literal["exact", "normalized", "prefix", "contains"]
MATCH_SCORES: dict[str, float] = {"exact": 1.0, "normalized": 0.9, "prefix": 0.6, "contains": 0.4}


@dataclass(frozen=True, slots=True)
class EntityMatch:
    id: str
    name: str
    score: float
    match: MatchKind

    @classmethod
    def of(cls, entity: str, name: str, kind: MatchKind) -> EntityMatch:
        return cls(entity, name, MATCH_SCORES[kind], kind)


@dataclass(slots=True)
class Subgraph:
    seeds: list[str]
    triples: list[Triple]
    names: dict[str, str | None]
    # Hub entities whose neighbourhood was capped, and whether max_edges cut the walk.
    capped_entities: set[str] = field(default_factory=set)
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class StoreStats:
    """triples: facts between entities plus literal-valued attributes (names excluded)."""

    triples: int
    entities: int
    relations: int


@dataclass(frozen=True, slots=True)
class Attribute:
    """A literal-valued attribute (`m.0abc people.person.date_of_birth "1956"`)."""

    subject: str
    relation: str
    value: str
    lang: str | None = None
    datatype: str | None = None

    @property
    def key(self) -> str:
        """Stable identity, for stores that keep literals as nodes (Neo4j)."""
        return hashlib.sha1(f"{self.subject}\x1f{self.relation}\x1f{self.value}\x1f{self.lang}".encode()).hexdigest()


@dataclass(slots=True)
class LoadBatch:
    """What a loader hands a store in one write: facts, names and literal attributes."""

    triples: list[Triple] = field(default_factory=list)
    names: list[tuple[str, str]] = field(default_factory=list)
    attributes: list[Attribute] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.triples) + len(self.names) + len(self.attributes)
