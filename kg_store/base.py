"""The store protocol every backend implements, and the walks built on top of it.

Backends implement the primitives (one round trip each, batched over many ids); the
k-hop subgraph, schema filtering and batching of huge frontiers live here once.
"""

from __future__ import annotations

import re
import socket
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Sequence
from functools import partial
from typing import Literal, Self

from kg_store.errors import StoreUnavailable
from kg_store.ids import check_id, normalize_name
from kg_store.model import (
    Direction,
    Edge,
    EntityMatch,
    LoadBatch,
    Neighborhood,
    StoreStats,
    Subgraph,
    Triple,
    is_value_node,
    value_edge,
    value_of,
)
from kg_store.names import partial_kind, query_tokens

DirectionFilter = Literal["out", "in", "both"]
# Edges a capped entity gets of each relation its capped edges lack (`neighbors(every_relation=True)`).
EDGES_PER_MISSING_RELATION = 10

# Freebase relations about the schema or bookkeeping, not the world; PoG and ToG drop
# type.object.type, common.* and freebase.* too. user.* and base.* hold real facts: kept.
DEFAULT_SCHEMA_PREFIXES: tuple[str, ...] = (
    "type.object.type",
    "type.object.key",
    "type.type.",
    "common.",
    "freebase.",
    "kg.",
    "dataworld.",
)


def check_reachable(host: str, port: int, what: str) -> None:
    """Fail at once, naming `what`, when nothing listens at host:port: a server store is
    opened before the model starts, and retries or a model start should not stand between
    a wrong URL and its error."""
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as exc:
        raise StoreUnavailable(f"cannot reach {what}: {exc}") from exc


def redact_url(text: str) -> str:
    """The text with the password of every URL in it replaced, for messages and reports.
    A password runs to the last '@' before the host (an unescaped '@' in it included)."""
    return re.sub(r"(//[^/:@\s'\"]*):[^/\s'\"]*@", r"\1:***@", text)


# The entities `GraphStore.reached_twice` judges a relation on (two edges each are enough).
REACHED_TWICE_SAMPLE = 50


class GraphStore(ABC):
    """A knowledge graph behind one interface. Use as a context manager or call close()."""

    #: Frontier size per round trip; backends with small message limits lower it.
    batch_size: int = 500
    #: Largest LoadBatch (records) a backend writes in one go.
    write_batch_size: int = 50_000

    def __init__(self, url: str, schema_prefixes: Sequence[str] = DEFAULT_SCHEMA_PREFIXES) -> None:
        self.url = url
        self.display_url = redact_url(url)
        self.schema_prefixes = tuple(schema_prefixes)
        self._reached_twice: dict[tuple[str, bool], bool] = {}
        # Whether the store holds literal attributes: None until probed (`_holds_values`); a
        # backend sets it back to None on a write of some, and on clear.
        self._values: bool | None = None

    # ---- primitives: one round trip each -------------------------------------------
    @abstractmethod
    def _neighbors(
        self,
        ids: Sequence[str],
        direction: DirectionFilter,
        relations: Collection[str] | None,
        limit_per_entity: int | None,
    ) -> Neighborhood:
        """Neighbours of `ids` (entities only, literals never). When `limit_per_entity` is
        set, at most that many edges per (entity, direction); entities that had more are
        listed in `truncated`."""

    @abstractmethod
    def names(self, ids: Sequence[str]) -> dict[str, str | None]:
        """Name of each id (`@en` preferred), None for unnamed nodes such as CVTs."""

    @abstractmethod
    def _search_exact(self, text: str, normalized: str, limit: int) -> list[EntityMatch]:
        """Exact name matches, then exact normalised-name matches."""

    @abstractmethod
    def _partial_candidates(self, normalized: str, tokens: list[str], limit: int) -> Iterable[tuple[str, str, str]]:
        """(id, name, normalised name) of names the backend's text index finds for `tokens`
        (each a prefix of a name token), about `limit` of the shortest, and names starting
        with `normalized`. `search_entities` keeps those the rule of `kg_store.names` matches."""

    @abstractmethod
    def _relation_degrees(self, ids: Sequence[str]) -> Iterable[tuple[str, str, int]]:
        """(id, relation, count) rows: facts between two entities that touch each id, per
        relation (a row per direction is fine: rows are added up)."""

    def _relation_degrees_to(self, ids: Sequence[str], cap: int) -> Iterable[tuple[str, str, int]]:
        """`_relation_degrees`, where a count may stop at `cap`: all the hub fill asks is whether
        a hub has more than EDGES_PER_MISSING_RELATION facts of a relation. A backend whose
        exact counts read every edge of a hub overrides it with a bounded read."""
        return self._relation_degrees(ids)

    @abstractmethod
    def stats(self) -> StoreStats: ...

    @abstractmethod
    def write(self, batch: LoadBatch) -> None:
        """Add facts, names and attributes. Idempotent: writing the same batch twice
        leaves the store as after once."""

    def prepare_write(self, batch: LoadBatch) -> Callable[[], None]:
        """`write(batch)` in two parts: the Python work (encoding) now, on the loading
        thread, and the returned call, which loaders run on a writer thread. A backend whose
        write is mostly driver time that releases the GIL splits here, so the writer thread
        never waits for the GIL while the parser holds it."""
        return partial(self.write, batch)

    @abstractmethod
    def clear(self) -> None:
        """Delete everything this store holds (for tests and `kgqa store clear`)."""

    @abstractmethod
    def attributes(self, ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """Literal-valued attributes (relation, value) of each id, names excluded."""

    @abstractmethod
    def _relation_counts(self) -> dict[str, int]:
        """Facts between two entities per relation (literal attributes not counted)."""

    @abstractmethod
    def _entities_with(self, relation: str, direction: Direction, limit: int) -> list[str]:
        """Up to `limit` distinct entities that are the head (`out`) or the tail (`in`) of
        a `relation` fact between two entities, in an order the store keeps between calls."""

    def after_load(self) -> None:
        """Settle after a bulk load (compaction, index builds); loaders call it once."""

    def forget_entities(self) -> None:
        """Drop what this object remembers of entities between calls (their names), as a
        freshly opened store would know nothing: for a reader whose store another process
        rewrote, and for timing a question's first reads. The default remembers none."""

    def close(self) -> None:
        """Release connections; the default has nothing to release."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the protocol ---------------------------------------------------------------
    def neighbors(
        self,
        ids: Sequence[str],
        *,
        direction: DirectionFilter = "both",
        relations: Collection[str] | None = None,
        limit_per_entity: int | None = None,
        every_relation: bool = False,
        values: bool = False,
    ) -> Neighborhood:
        """Neighbours of many entities; one round trip per `batch_size` ids.

        Schema relations (see `schema_prefixes`) are dropped. Every requested id is a key
        of the result, with an empty list when it has no (or no such) neighbours.

        `every_relation`: an entity capped by `limit_per_entity` also gets up to
        `EDGES_PER_MISSING_RELATION` edges of each relation its capped edges lack. A cap
        keeps the store's first edges, often all of one relation (the United States' first
        100 in FB15k-237 are its second-level divisions), and a rare relation a question
        asks about (its form of government) would not be walkable at all.

        `values`: each entity's literal attributes (names aside) come too, as out-edges to
        value nodes (`kg_store.model.value_node`), named by the literal: "when was X born"
        ends at a date an RDF graph keeps as a literal. At most `limit_per_entity` of them
        an entity, apart from its edges' cap. A value node among `ids` gets the entities
        that hold its value, by any relation, as in-edges ("the element with symbol Ta"
        starts at the value "Ta"); without `values` a value node is an invalid id.
        """
        requested = list(dict.fromkeys(ids))
        held = [i for i in requested if values and isinstance(i, str) and is_value_node(i)]
        unique = [check_id(i) for i in requested if i not in held]
        for rel in relations or ():
            check_id(rel)
        if limit_per_entity is not None and limit_per_entity < 1:
            raise ValueError("limit_per_entity must be at least 1")
        result = Neighborhood(edges={i: [] for i in requested})
        if held and direction != "out":
            self._add_holders(result, held, relations, limit_per_entity)
        for start in range(0, len(unique), self.batch_size):
            batch = unique[start : start + self.batch_size]
            part = self._neighbors(batch, direction, relations, limit_per_entity)
            result.truncated |= part.truncated
            if values and direction != "in" and self._holds_values():
                read = dict(part.values or {})
                unread = [i for i in batch if i not in read]  # not seen by the edges' read
                if unread:
                    read.update(self._value_edges(unread, relations))
                for source, edges in read.items():
                    part.edges.setdefault(source, []).extend(edges[:limit_per_entity])
            for source, edges in part.edges.items():
                result.edges[source].extend(e for e in edges if not e.relation.startswith(self.schema_prefixes))
        if every_relation and limit_per_entity is not None and result.truncated and relations is None:
            self._add_missing_relations(result, direction)
        return result

    def _add_holders(self, result: Neighborhood, nodes: Sequence[str], relations: Collection[str] | None,
                     limit: int | None) -> None:
        """The entities holding each value node's value, as its in-edges; capped as a hub's."""
        if not self._holds_values():
            return
        wanted = set(relations) if relations else None
        for node in nodes:
            pairs = [(relation, entity) for relation, entity in dict.fromkeys(self._holders(value_of(node), limit))
                     if (wanted is None or relation in wanted) and not relation.startswith(self.schema_prefixes)]
            if limit is not None and len(pairs) > limit:
                pairs = pairs[:limit]
                result.truncated.add(node)
            names = self.names(sorted({entity for _, entity in pairs}))
            result.edges[node] = [Edge(node, relation, entity, names.get(entity), "in") for relation, entity in pairs]

    def _holders(self, value: str, limit: int | None) -> Iterable[tuple[str, str]]:
        """(relation, entity) of the literal attributes whose value is `value` (whatever its
        datatype or language), names aside; more than `limit` only where it is no cost."""
        raise NotImplementedError(f"{type(self).__name__} cannot read the holders of a value")

    def _value_edges(self, ids: Sequence[str], relations: Collection[str] | None) -> dict[str, list[Edge]]:
        """Each entity's literal attributes as edges to value nodes, for a backend whose edge
        reads do not see them: one `attributes` read, where the store holds any."""
        if not self._holds_values():
            return {}
        wanted = set(relations) if relations else None
        return {source: [value_edge(source, relation, value) for relation, value in dict.fromkeys(attributes)
                         if value.strip() and (wanted is None or relation in wanted)]
                for source, attributes in self.attributes(ids).items()}

    def _holds_values(self) -> bool:
        """Whether the store holds any literal attribute (names aside), probed once: a value
        read is then skipped for a KG without any (a table's facts)."""
        if self._values is None:
            self._values = self._probe_values()
        return self._values

    def _probe_values(self) -> bool:
        """The probe `_holds_values` runs; a backend that can tell cheaply says so."""
        return True

    def _add_missing_relations(self, result: Neighborhood, direction: DirectionFilter) -> None:
        capped = sorted(e for e in result.truncated if not is_value_node(e))  # a value's holders have no fill
        present = {entity: {e.relation for e in result.edges[entity]} for entity in capped}
        facts: dict[tuple[str, str], dict[DirectionFilter, int]] = {}  # (hub, relation it lacks) -> facts a way
        for start in range(0, len(capped), self.batch_size):
            for entity, relation, way, count in self._relation_degrees_by_way(
                    capped[start : start + self.batch_size], EDGES_PER_MISSING_RELATION + 1):
                if relation not in present[entity] and not relation.startswith(self.schema_prefixes):
                    ways = facts.setdefault((entity, relation), {})
                    ways[way] = ways.get(way, 0) + count
        # A hub lacks hundreds of relations on a large KG, most of them with a fact or two:
        # those pairs are read whole, many in one read. A relation a hub has many facts of is
        # read capped, once for every hub that has many of it (`_fill_edges`: a remote store
        # sends all of it at once). Where the counts say their direction, a direction
        # without facts is not read, and one with few is read whole.
        whole: dict[DirectionFilter, list[tuple[str, str]]] = {}
        many: dict[tuple[str, DirectionFilter], list[str]] = {}
        for (entity, relation), ways in sorted(facts.items()):
            few = sum(ways.values()) <= EDGES_PER_MISSING_RELATION
            for way, count in ways.items():
                read: DirectionFilter = direction if way == "both" else way
                if direction not in ("both", read):
                    continue
                if few or (way != "both" and count <= EDGES_PER_MISSING_RELATION):
                    whole.setdefault(read, []).append((entity, relation))
                else:
                    many.setdefault((relation, read), []).append(entity)
        for entity, edges in self._fill_edges(whole, many, EDGES_PER_MISSING_RELATION):
            result.edges[entity].extend(edges)

    def _relation_degrees_by_way(self, ids: Sequence[str], cap: int) -> Iterable[tuple[str, str, DirectionFilter, int]]:
        """`_relation_degrees_to`'s counts with the direction of their facts ("out", "in")
        where the backend tells it, "both" where it does not."""
        for entity, relation, count in self._relation_degrees_to(ids, cap):
            yield entity, relation, "both", count

    def _fill_edges(self, whole: dict[DirectionFilter, list[tuple[str, str]]],
                    many: dict[tuple[str, DirectionFilter], list[str]], cap: int) -> Iterable[tuple[str, list[Edge]]]:
        """(entity, edges) the hub fill reads: every edge of the `whole` (entity, relation)
        pairs each way, and at most `cap` edges each way asked of the relation for `many`'s
        (relation, direction) -> hubs. A `_edges_of` read a batch of pairs and a capped
        `_neighbors` read a relation and batch here; a backend that pays a round trip a read
        sends them together."""
        for way, pairs in whole.items():
            for start in range(0, len(pairs), self.batch_size):
                yield from self._edges_of(pairs[start : start + self.batch_size], way).edges.items()
        for (relation, way), hubs in many.items():
            for start in range(0, len(hubs), self.batch_size):
                yield from self._neighbors(hubs[start : start + self.batch_size], way, [relation], cap).edges.items()

    def _edges_of(self, pairs: Sequence[tuple[str, str]], direction: DirectionFilter) -> Neighborhood:
        """Every edge of each (entity, relation) pair, in `direction`: pairs known to have
        few. One `_neighbors` read per entity here; a backend that pays a round trip a read
        reads them all at once."""
        relations: dict[str, list[str]] = {}
        for entity, relation in pairs:
            relations.setdefault(entity, []).append(relation)
        hood = Neighborhood(edges={})
        for entity, wanted in relations.items():
            hood.edges[entity] = self._neighbors([entity], direction, wanted, None).edges.get(entity, [])
        return hood

    def reached_twice(self, relation: str, forward: bool = True, *, sample: int = REACHED_TWICE_SAMPLE) -> bool:
        """Whether walking `relation` (`forward`: head to tail) reaches some entity from two
        or more: a discoverer from each element he discovered, a capital from its country
        alone. Judged on the first `sample` entities the store lists as reached that way (two
        edges each are enough to tell), and remembered by this store object: a walk asks it
        of every relation it steps along, and a relation's shape does not change between
        questions."""
        key = (relation, forward)
        known = self._reached_twice.get(key)  # asked for every group of every hop: a hit is a lookup
        if known is None:
            known = self._reached_twice[key] = self._reaches_twice(check_id(relation), forward, sample)
        return known

    def _reaches_twice(self, relation: str, forward: bool, sample: int) -> bool:
        """`reached_twice`, asked of the store: the sample listed, then its edges of the
        relation read (two each at most); a backend whose reads cost round trips and a
        count asks it with one lookup."""
        back = "in" if forward else "out"
        reached = self.entities_with(relation, back, limit=sample)
        hood = self.neighbors(reached, direction=back, relations=[relation], limit_per_entity=2)
        return any(len(edges) > 1 for edges in hood.edges.values())

    def relation_counts(self) -> dict[str, int]:
        """How many facts between entities each relation has, schema relations left out:
        what a graph-only method (a synthesised path memory) starts from."""
        return {r: n for r, n in self._relation_counts().items() if not r.startswith(self.schema_prefixes)}

    def relation_names(self) -> set[str]:
        """Every relation the store holds, schema relations left out; the name and attribute
        relations too where the store keeps them as facts: the graph's vocabulary, which a
        question's words can be checked against. Cheaper than `relation_counts`."""
        return {r for r in self._relation_names() if not r.startswith(self.schema_prefixes)}

    def _relation_names(self) -> Iterable[str]:
        return self._relation_counts()  # a backend with a cheaper distinct-relations query overrides this

    def entities_with(self, relation: str, direction: Direction, *, limit: int = 1_000) -> list[str]:
        """Entities from which `relation` can be walked in `direction` (`out`: its heads,
        `in`: its tails), at most `limit`, in the store's own stable order."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        return self._entities_with(check_id(relation), direction, limit)

    def degrees(self, ids: Sequence[str]) -> dict[str, int]:
        """How many facts between entities touch each id, both directions (a fact from an
        id to itself counts twice), schema relations left out: popularity, for breaking
        ties between candidates of one name. One round trip per `batch_size` ids; every
        requested id is a key (0 when the store has no fact about it)."""
        unique = list(dict.fromkeys(check_id(i) for i in ids))
        found = dict.fromkeys(unique, 0)
        for start in range(0, len(unique), self.batch_size):
            for entity, relation, count in self._relation_degrees(unique[start : start + self.batch_size]):
                if not relation.startswith(self.schema_prefixes):
                    found[entity] += count
        return found

    def _search_partial(self, normalized: str, limit: int) -> list[EntityMatch]:
        """Partial matches by tokens: names in which every token of `normalized` starts a
        token, `prefix` when the whole name starts with it, else `contains`, whatever the
        backend's index tokenizer proposed (one rule for every backend)."""
        tokens = query_tokens(normalized)
        found = []
        for entity, name, norm in self._partial_candidates(normalized, tokens, limit * 4):
            kind = partial_kind(normalized, tokens, norm)
            if kind is not None:
                found.append(EntityMatch.of(entity, name, kind))
        return found

    def search_entities(self, text: str, *, limit: int = 10, partial: bool = True) -> list[EntityMatch]:
        """Entity linking candidates for a surface name, best first.

        Order: exact name, exact normalised name, then partial matches by tokens (every
        token of the normalised text starts a token of the normalised name: "hanks" and
        "tom han" find "Tom Hanks"), those whose name starts with the text first; shorter
        names first within a kind. `partial=False` stops after the exact kinds. Partial
        matches come from each backend's text index (see `kg_store.names`).
        """
        if limit < 1:
            raise ValueError("limit must be at least 1")
        text = text.strip()
        if not any(ch.isalnum() for ch in text):  # `"` is no name, however many names normalise to ""
            return []
        normalized = normalize_name(text)
        found: dict[str, EntityMatch] = {}

        def keep_best(matches: list[EntityMatch]) -> None:
            # A backend may list an entity under two kinds (its exact name also normalises
            # to itself) in any order: the better kind wins.
            for m in matches:
                if m.id not in found or m.score > found[m.id].score:
                    found[m.id] = m

        keep_best(self._search_exact(text, normalized, limit))
        if partial and len(found) < limit and normalized:
            keep_best(self._search_partial(normalized, limit))
        return sorted(found.values(), key=lambda m: (-m.score, len(m.name), m.id))[:limit]

    def subgraph(
        self,
        seeds: Sequence[str],
        *,
        hops: int = 2,
        max_degree: int | None = 500,
        max_edges: int = 20_000,
        relations: Collection[str] | None = None,
    ) -> Subgraph:
        """The k-hop neighbourhood of `seeds` (both directions), breadth first.

        Hubs contribute at most `max_degree` edges per direction and are not expanded
        further; the walk stops adding edges at `max_edges` and says so.
        """
        seen_nodes = set(seeds)
        triples: dict[Triple, None] = {}
        names: dict[str, str | None] = {}
        capped: set[str] = set()
        frontier = list(dict.fromkeys(seeds))
        truncated = False
        for _ in range(hops):
            if not frontier or truncated:
                break
            hood = self.neighbors(frontier, relations=relations, limit_per_entity=max_degree)
            capped |= hood.truncated
            next_frontier: list[str] = []
            for edge in _edges_in_order(hood, frontier):
                if len(triples) >= max_edges:
                    truncated = True
                    break
                triples.setdefault(edge.as_triple(), None)
                names.setdefault(edge.neighbor, edge.neighbor_name)
                if edge.neighbor not in seen_nodes:
                    seen_nodes.add(edge.neighbor)
                    if edge.neighbor not in hood.truncated:
                        next_frontier.append(edge.neighbor)
            frontier = [n for n in next_frontier if n not in capped]
        missing = [s for s in seeds if s not in names]
        if missing:
            names.update(self.names(missing))
        return Subgraph(list(seeds), list(triples), names, capped, truncated)


def _edges_in_order(hood: Neighborhood, order: Iterable[str]) -> Iterable[Edge]:
    for source in order:
        yield from hood.edges.get(source, ())
