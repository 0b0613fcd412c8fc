"""Embedded Oxigraph (pyoxigraph), on disk: the default store, no server needed.

URL: `oxigraph:PATH` (a folder, created on first write) or `oxigraph:` for an in-memory
store. Neighbour, name and exact-name lookups go straight to the quad indexes (no SPARQL
parsing); statistics run the same strictly escaped SPARQL as the remote backend.

The relations the store holds are listed in a second side file, PATH/kgqa-relations.json,
which writes keep in step: the store itself can list them only by a scan of its predicate
index (seconds at 20 million facts), which a store written before the file existed pays once.

Partial name search reads a side index, `kg_store.names.NameIndex`: SQLite FTS5 in
PATH/kgqa-names.sqlite (in memory for `oxigraph:`), kept in step by `write` and `clear`.
Its table of shown names, keyed by id, also gives the neighbours' names a walk reads (one
batched query, several times faster a name than a random read of the quads) where the
index is there and clean; the quads give them otherwise. A store without one (written
before it existed, or by a process that died mid-write, which leaves it marked dirty) gets
it rebuilt from its names once: by `after_load`, or at the first partial search. A
read-only opener adds a missing file (or replaces one of another version), but never
rebuilds a dirty one, which a writer may be in the middle of: it searches a rebuild in
memory instead, with a warning.

The neighbours a walk reads come from a third side file, the adjacency index
(`kg_store.adjacency`, PATH/kgqa-adjacency.sqlite): every entity's edges and literal values
in one B-tree range, in the quads' own order, several times faster a read than the quads.
`after_load` builds it from a scan of the store, where the store is big enough to gain
(`adjacency_min_bytes`); a write drops it. Without one (a small or in-memory store, a store
written but not settled by `after_load`, one written by an earlier version) the same reads
go to the quads and return the same edges, in the same order.
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import threading
import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path

import pyoxigraph as ox

from kg_store import sparql_text
from kg_store.adjacency import ADJACENCY_FILE, ASK_STORE, IN, OUT, VALUE, AdjacencyIndex
from kg_store.base import DirectionFilter, GraphStore
from kg_store.errors import StoreUnavailable
from kg_store.ids import NAME_IRI, NORM_NAME_IRI, from_iri, is_internal_iri, to_iri
from kg_store.model import Direction, Edge, EntityMatch, LoadBatch, Neighborhood, StoreStats, value_edge
from kg_store.names import SIDE_FILE, NameIndex

_NAME = ox.NamedNode(NAME_IRI)
_NORM = ox.NamedNode(NORM_NAME_IRI)
_DEFAULT = ox.DefaultGraph()
#: The relations side file's name, inside an on-disk store's folder: a JSON list of IRIs.
RELATIONS_FILE = "kgqa-relations.json"
# Edges a degree count reads each way before it counts a hub relation by relation.
DEGREE_ROWS = 5_000


class OxigraphStore(GraphStore):
    # Small enough that parsing and encoding the next batch overlap Oxigraph's load of this
    # one for most of a file; at five million facts 50k loaded fastest (bench/store.py).
    write_batch_size = 50_000
    # A store this big on disk (RocksDB's files, about 400,000 facts) gets an adjacency index
    # from `after_load`: below it the quads answer a walk in milliseconds all the same, and the
    # build (a second or two at 100,000 facts) would delay a first answer (`kgqa demo`).
    adjacency_min_bytes = 64 << 20

    def __init__(self, url: str, path: str | Path | None, *, read_only: bool = False, **kwargs) -> None:
        super().__init__(url, **kwargs)
        self.path = Path(path) if path else None
        self.read_only = read_only
        fresh = False
        try:
            if self.path is None:
                self._store = ox.Store()
            elif read_only:
                if not (self.path / "CURRENT").exists():  # RocksDB's marker of an existing store
                    raise StoreUnavailable(f"no Oxigraph store at {url} yet: load data into it with `kgqa load`")
                self._store = ox.Store.read_only(str(self.path))
            else:
                fresh = not (self.path / "CURRENT").exists()
                self.path.mkdir(parents=True, exist_ok=True)
                self._store = ox.Store(str(self.path))
        except OSError as exc:  # locked by another process, unreadable, not a store
            raise StoreUnavailable(f"cannot open Oxigraph store at {url}: {exc}") from exc
        # The name index: kept in step by writes when loaded and clean; None until the first
        # partial search (or after_load) builds it otherwise.
        self._index_lock = threading.Lock()
        self._index: NameIndex | None = None
        self._index_path = self.path / SIDE_FILE if self.path is not None else None
        self._index_looked_for = False  # by a read-only name read (`_index_as_it_is`)
        try:
            if self._index_path is None or fresh:
                self._index = NameIndex.create(self._index_path)
            elif not read_only:
                found = NameIndex.open(self._index_path)
                if found is not None and not found.clean:  # a write died half way: rebuilt later
                    found.close()
                    found = None
                self._index = found
        except (OSError, sqlite3.Error) as exc:
            raise StoreUnavailable(f"cannot open the name index {self._index_path}: {exc}") from exc
        # Neighbours' ids and names are looked up again and again during walks (PoG caches
        # names too): IRI -> (id, name), cleared on every write and when past the cap.
        self._nodes: dict[str, tuple[str, str | None]] = {}
        self._nodes_cap = 500_000
        self._relation_ids: dict[str, str] = {}  # predicate IRI -> relation id
        # The predicate IRIs the store holds (internal ones aside), once known; the side file
        # keeps them between runs. A new store starts with none.
        self._predicates_path = self.path / RELATIONS_FILE if self.path is not None else None
        self._predicates: set[str] | None = None
        if fresh or self.path is None:
            self._keep_predicates(set())
        # The adjacency index, where one of this version lies beside the store.
        self._adjacency_path = self.path / ADJACENCY_FILE if self.path is not None else None
        self._adjacency = AdjacencyIndex.open(self._adjacency_path) if self._adjacency_path and not fresh else None

    def forget_entities(self) -> None:
        self._nodes.clear()

    def close(self) -> None:
        if self.path is not None and not self.read_only:
            self._store.flush()
        with self._index_lock:
            if self._index is not None:
                self._index.close()
                self._index = None
        if self._adjacency is not None:
            self._adjacency.close()
            self._adjacency = None

    def after_load(self) -> None:
        # Merge the SST files bulk_load wrote; otherwise background compaction competes
        # with the first queries and every lookup reads more files.
        self._store.optimize()
        if self.read_only:
            return
        index = self._name_index()  # built here when missing, rather than at a first search
        if len(index) > 0:
            index.optimize()
        if self._adjacency is None and self._adjacency_path is not None and self._disk_bytes() >= self.adjacency_min_bytes:
            self._build_adjacency(index.path)

    def _build_adjacency(self, names: Path | None) -> None:
        """The adjacency index, built from a scan of the store. A build that fails (a full
        disk) loses nothing: the store is whole, and its walks read the quads meanwhile."""
        try:
            AdjacencyIndex.build(self._adjacency_path, self._adjacency_rows(), names)  # type: ignore[arg-type]
        except (OSError, sqlite3.Error) as exc:
            warnings.warn(f"{self.display_url}: the adjacency index could not be built ({exc}); walks read the "
                          "store's quads, slower on a large store. Free space, then run `kgqa store settle`",
                          RuntimeWarning, stacklevel=3)
            return
        self._adjacency = AdjacencyIndex.open(self._adjacency_path)  # type: ignore[arg-type]
        self._values = None  # the index knows exactly (`_probe_values`)

    def clear(self) -> None:
        self._drop_adjacency()
        self._store.clear()
        self._nodes.clear()
        self._values = None
        self._keep_predicates(set())
        with self._index_lock:
            if self._index is None and self._index_path is not None:
                self._index = NameIndex.create(self._index_path)
            elif self._index is not None:
                self._index.clear()

    # ---- writes ----------------------------------------------------------------------
    def write(self, batch: LoadBatch) -> None:
        self.prepare_write(batch)()

    def prepare_write(self, batch: LoadBatch) -> Callable[[], None]:
        # The N-Triples text is built now, on the loading thread; the returned call is
        # Oxigraph's bulk load (Rust, GIL released) and the name index's insert.
        data = sparql_text.ntriples(batch).encode() if len(batch) else b""
        predicates = {to_iri(r) for r in {t.relation for t in batch.triples} | {a.relation for a in batch.attributes}}
        predicates = {p for p in predicates | ({NAME_IRI} if batch.names else set()) if not is_internal_iri(p)}

        def load() -> None:
            if not data:
                return
            self._drop_adjacency()
            self._nodes.clear()
            if batch.attributes:
                self._values = None
            known = self._known_predicates()
            if known is not None and not predicates <= known:
                self._keep_predicates(known | predicates)  # listed before they are written: never missing
            # Under the index lock: a build of the index (first search) sees all or none of it.
            with self._index_lock:
                index = self._index if batch.names else None
                if index is not None:
                    index.mark_dirty()  # cleared by add(): a crash in between means "rebuild"
                # bulk_load parses in Rust and skips the transaction log: the fast path. Every
                # term was built and checked by sparql_text, so Oxigraph's re-validation is skipped.
                self._store.bulk_load(input=data, format=ox.RdfFormat.N_TRIPLES, lenient=True)
                if index is not None:
                    index.add(batch.names)

        return load

    # ---- the adjacency index ---------------------------------------------------------
    def _drop_adjacency(self) -> None:
        """Before the store changes: its reads go to the quads until `after_load` builds it again."""
        if self._adjacency is not None:
            self._adjacency.close()
            self._adjacency = None
        if self._adjacency_path is not None and not self.read_only:
            AdjacencyIndex.drop(self._adjacency_path)

    def _disk_bytes(self) -> int:
        """The size of RocksDB's table files, each read as it is found."""
        total = 0
        for table in self.path.glob("*.sst") if self.path is not None else ():
            try:
                total += table.stat().st_size
            except FileNotFoundError:  # compacted away between the listing and the read
                pass
        return total

    def _adjacency_rows(self) -> Iterator[tuple[str, int, str, str]]:
        """(node, way, relation, other) of every fact, in the order of a scan of the quads:
        what `_neighbors_from_quads` reads of each entity, both ways, and of its values."""
        named_node, literal = ox.NamedNode, ox.Literal
        relation_ids: dict[str, str | None] = {}  # predicate IRI -> relation id, None: internal
        for quad in self._store.quads_for_pattern(None, None, None, _DEFAULT):
            subject, other = quad.subject, quad.object
            if type(subject) is not named_node:
                continue
            predicate = quad.predicate.value
            if predicate not in relation_ids:
                relation_ids[predicate] = None if is_internal_iri(predicate) else from_iri(predicate)
            relation = relation_ids[predicate]
            if relation is None:
                continue
            if type(other) is named_node:
                node, neighbour = from_iri(subject.value), from_iri(other.value)
                yield node, OUT, relation, neighbour
                yield neighbour, IN, relation, node
            elif type(other) is literal and predicate != NAME_IRI and other.value.strip():
                yield from_iri(subject.value), VALUE, relation, other.value

    # ---- the name index --------------------------------------------------------------
    def _stored_names(self) -> Iterator[tuple[str, str]]:
        """Every (entity, name) in the store, as the name lookups see them (`@en` or no language)."""
        for quad in self._store.quads_for_pattern(None, _NAME, None, _DEFAULT):
            name = quad.object
            if isinstance(name, ox.Literal) and name.language in (None, "en") and isinstance(quad.subject, ox.NamedNode):
                yield from_iri(quad.subject.value), name.value

    def _name_index(self) -> NameIndex:
        """The loaded index; built from the store's names the first time it is missing."""
        index = self._index
        if index is not None:
            return index
        with self._index_lock:
            if self._index is None:
                self._index = self._load_or_build_index()
            return self._index

    def _index_as_it_is(self) -> NameIndex | None:
        """The name index where it is loaded, or (read-only) on disk, clean and of this
        version; never built for a name read, which the quads answer too (a build reads every
        name: a minute at millions). Looked for on disk once."""
        if self._index is None and self.read_only and not self._index_looked_for and self._index_path is not None:
            with self._index_lock:
                self._index_looked_for = True
                if self._index is None:
                    found = NameIndex.open(self._index_path, read_only=True)
                    if found is not None and not found.clean:
                        found.close()
                        found = None
                    self._index = found
        return self._index

    def _load_or_build_index(self) -> NameIndex:
        path = self._index_path
        if not self.read_only or path is None:
            return NameIndex.build(path, self._stored_names())
        found = NameIndex.open(path, read_only=True)
        if found is None:
            # No index yet, or not one this version reads: put one beside the store (a missing
            # one only if none appeared meanwhile: a writer may have made it).
            try:
                found = NameIndex.build(path, self._stored_names(), replace=path.exists())
            except (OSError, sqlite3.Error):  # a folder we may not write to
                return NameIndex.build(None, self._stored_names())
        if found.clean:
            return found
        found.close()
        warnings.warn(
            f"the name index {path} is marked incomplete (a write to the store was under way or died): "
            "searching an index rebuilt in memory; open the store writable once to rebuild it on disk",
            RuntimeWarning, stacklevel=5)
        return NameIndex.build(None, self._stored_names())

    # ---- reads -----------------------------------------------------------------------
    def _neighbors(
        self,
        ids: Sequence[str],
        direction: DirectionFilter,
        relations: Collection[str] | None,
        limit_per_entity: int | None,
    ) -> Neighborhood:
        if self._adjacency is not None:
            return self._neighbors_from_index(self._adjacency, ids, direction, relations, limit_per_entity)
        return self._neighbors_from_quads(ids, direction, relations, limit_per_entity)

    def _neighbors_from_index(self, index: AdjacencyIndex, ids: Sequence[str], direction: DirectionFilter,
                              relations: Collection[str] | None, limit_per_entity: int | None) -> Neighborhood:
        """`_neighbors_from_quads`'s edges and values, read from the adjacency index."""
        wanted = list(relations) if relations else None
        collect = direction != "in" and self._holds_values()
        hood = Neighborhood(edges={}, values={} if collect else None)
        read = None if limit_per_entity is None else limit_per_entity + 1  # the extra row says "capped"
        # The rows carry their neighbours' shown names; the store chooses for those with several.
        several: dict[str, list[tuple[list[Edge], int]]] = {}  # such a neighbour -> where its edges are
        for source in ids:
            edges: list[Edge] = []
            for dir_name, way in (("out", OUT), ("in", IN)):
                if direction not in (dir_name, "both"):
                    continue
                rows = index.edges(source, way, wanted, read)
                if read is not None and len(rows) == read:
                    hood.truncated.add(source)
                    rows.pop()
                for relation, other, name, named in rows:
                    if named == ASK_STORE:
                        several.setdefault(other, []).append((edges, len(edges)))
                    edges.append(Edge(source, relation, other, name, dir_name))  # type: ignore[arg-type]
                if collect and dir_name == "out" and source not in hood.truncated:
                    hood.values[source] = [value_edge(source, relation, value)  # type: ignore[index]
                                           for relation, value, _, _ in index.edges(source, VALUE, wanted, None)]
            hood.edges[source] = edges
        if several:
            chosen = self._shown_names(list(several))
            for entity, places in several.items():
                for edges, at in places:
                    edges[at] = edges[at]._replace(neighbor_name=chosen[entity])
        return hood

    def _neighbors_from_quads(self, ids: Sequence[str], direction: DirectionFilter,
                              relations: Collection[str] | None, limit_per_entity: int | None) -> Neighborhood:
        rel_nodes = [ox.NamedNode(to_iri(r)) for r in relations] if relations else [None]
        nodes, relation_ids, named_node = self._nodes, self._relation_ids, ox.NamedNode
        if len(nodes) > self._nodes_cap:
            nodes.clear()
        quads_for = self._store.quads_for_pattern
        # Literal values are collected in the out-scan where the store holds any (`neighbors(values=True)`).
        collect = direction != "in" and self._holds_values()
        hood = Neighborhood(edges={}, values={} if collect else None)
        literal = ox.Literal
        # The edges as (source, relation, neighbour IRI, direction) first: the names of the
        # neighbours not met before are read afterwards, in one batch (`_remember`).
        found: list[tuple[str, list[tuple[str, str, str, str]]]] = []
        seen: dict[str, tuple[str, str | None]] = {}  # this call's, whatever another thread clears
        unknown: dict[str, None] = {}
        for source in ids:
            node = named_node(to_iri(source))
            edges: list[tuple[str, str, str, str]] = []
            values: list[Edge] = []  # the literals the out-scan passes (`neighbors(values=True)`)
            for dir_name in ("out", "in"):
                if direction not in (dir_name, "both"):
                    continue
                count, capped = 0, False
                for rel in rel_nodes:
                    quads = quads_for(node, rel, None, _DEFAULT) if dir_name == "out" else quads_for(None, rel, node, _DEFAULT)
                    for quad in quads:
                        other = quad.object if dir_name == "out" else quad.subject
                        # Names, normalised names and attributes are literals: not neighbours.
                        if type(other) is not named_node:
                            if collect and type(other) is literal and dir_name == "out":
                                predicate = quad.predicate.value
                                if predicate != NAME_IRI and not is_internal_iri(predicate) and other.value.strip():
                                    relation = relation_ids.get(predicate) or relation_ids.setdefault(predicate, from_iri(predicate))
                                    values.append(value_edge(source, relation, other.value))
                            continue
                        predicate = quad.predicate.value
                        relation = relation_ids.get(predicate)
                        if relation is None:
                            if is_internal_iri(predicate):
                                continue
                            relation = relation_ids[predicate] = from_iri(predicate)
                        if limit_per_entity is not None and count == limit_per_entity:
                            hood.truncated.add(source)
                            capped = True
                            break
                        other_iri = other.value
                        if other_iri not in seen:
                            known = nodes.get(other_iri)
                            if known is None:
                                unknown[other_iri] = None
                            else:
                                seen[other_iri] = known
                        edges.append((source, relation, other_iri, dir_name))
                        count += 1
                    if capped:
                        break
                if collect and dir_name == "out" and source not in hood.truncated:
                    hood.values[source] = values  # a capped scan stopped early: its values are read apart
            found.append((source, edges))
        if unknown:
            seen.update(self._remember(list(unknown)))
        for source, edges in found:
            hood.edges[source] = [Edge(s, r, *seen[o], d) for s, r, o, d in edges]  # type: ignore[arg-type]
        return hood

    def _remember(self, iris: list[str]) -> dict[str, tuple[str, str | None]]:
        """The (id, name) of entities (IRIs), also kept in `_nodes`."""
        ids = [from_iri(i) for i in iris]
        shown = self._shown_names(ids)
        read = {iri: (entity, shown[entity]) for iri, entity in zip(iris, ids, strict=True)}
        self._nodes.update(read)
        return read

    def _shown_names(self, ids: list[str]) -> dict[str, str | None]:
        """The name each entity shows. From the name index's table of shown names (a B-tree
        keyed by id, several times faster a name than the quad index), where the index is
        ready (`_index_as_it_is`); from the quads otherwise, and for an entity with several
        names, which the language chooses between (`_name_of`)."""
        index = self._index_as_it_is()
        if index is None:
            shown: dict[str, str | None] = {}
            several = ids
        else:
            shown, several = index.display_names(ids)
        for entity in several:
            shown[entity] = self._name_of(ox.NamedNode(to_iri(entity)))
        return shown

    def _name_of(self, node: ox.NamedNode) -> str | None:
        fallback = None
        for quad in self._store.quads_for_pattern(node, _NAME, None, _DEFAULT):
            lang = quad.object.language
            if lang == "en":
                return quad.object.value
            if fallback is None and not lang:
                fallback = quad.object.value
        return fallback

    def names(self, ids: Sequence[str]) -> dict[str, str | None]:
        iris = [to_iri(i) for i in ids]
        known = {iri: self._nodes.get(iri) for iri in iris}
        missing = [iri for iri, entry in known.items() if entry is None]
        if missing:
            known.update(self._remember(missing))
        return {i: known[iri][1] for i, iri in zip(ids, iris, strict=True)}  # type: ignore[index]

    def attributes(self, ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        out: dict[str, list[tuple[str, str]]] = {}
        for i in ids:
            rows = []
            for quad in self._store.quads_for_pattern(ox.NamedNode(to_iri(i)), None, None, _DEFAULT):
                p = quad.predicate.value
                if isinstance(quad.object, ox.Literal) and p not in (NAME_IRI, NORM_NAME_IRI):
                    rows.append((from_iri(p), quad.object.value))
            out[i] = rows
        return out

    def _holders(self, value: str, limit: int | None) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for lang, datatype in sparql_text.value_forms(value):
            term = ox.Literal(value, language=lang) if lang else ox.Literal(
                value, datatype=ox.NamedNode(datatype)) if datatype else ox.Literal(value)
            for quad in self._store.quads_for_pattern(None, None, term, _DEFAULT):
                predicate = quad.predicate.value
                if predicate not in (NAME_IRI, NORM_NAME_IRI) and isinstance(quad.subject, ox.NamedNode):
                    found.append((from_iri(predicate), from_iri(quad.subject.value)))
                    if limit is not None and len(found) > limit:
                        return found
        return found

    def _probe_values(self) -> bool:
        """Whether some relation's first facts hold a literal: a look at the start of each
        relation's range, where a scan for any literal would read every fact of a KG without
        one. Where not, walks collect no literal and read no value's holders. The adjacency
        index, where there is one, knows exactly."""
        if self._adjacency is not None:
            return self._adjacency.holds_values
        quads_for = self._store.quads_for_pattern
        return any(isinstance(quad.object, ox.Literal)
                   for predicate in sorted(self._predicate_iris() - {NAME_IRI})
                   for quad in itertools.islice(quads_for(None, ox.NamedNode(predicate), None, _DEFAULT), 20))

    def _select(self, query: str) -> list[ox.QuerySolution]:
        return list(self._store.query(query))

    def _search_exact(self, text: str, normalized: str, limit: int) -> list[EntityMatch]:
        # Literals are built as terms, never parsed from text: nothing to escape.
        quads_for, cap = self._store.quads_for_pattern, limit * 4
        found: list[EntityMatch] = []
        for literal in (ox.Literal(text, language="en"), ox.Literal(text)):
            for quad in quads_for(None, _NAME, literal, _DEFAULT):
                found.append(EntityMatch.of(from_iri(quad.subject.value), text, "exact"))
                if len(found) >= cap:
                    return found
        for quad in quads_for(None, _NORM, ox.Literal(normalized), _DEFAULT):
            for name in quads_for(quad.subject, _NAME, None, _DEFAULT):
                if isinstance(name.object, ox.Literal) and name.object.language in (None, "en"):
                    found.append(EntityMatch.of(from_iri(quad.subject.value), name.object.value, "normalized"))
            if len(found) >= cap:
                break
        return found

    def _partial_candidates(self, normalized: str, tokens: list[str], limit: int) -> list[tuple[str, str, str]]:
        return self._name_index().search(normalized, tokens, limit)

    def _relation_counts(self) -> dict[str, int]:
        rows = self._select(sparql_text.relation_counts_query())
        return {from_iri(r["p"].value): int(r["c"].value) for r in rows if not is_internal_iri(r["p"].value)}

    def _relation_names(self) -> Iterable[str]:
        return [from_iri(p) for p in sorted(self._predicate_iris())]

    def _relation_degrees(self, ids: Sequence[str]) -> Iterable[tuple[str, str, int]]:
        for row in self._select(sparql_text.degrees_query(ids)):
            predicate = row["p"].value
            if not is_internal_iri(predicate):
                yield from_iri(row["s"].value), from_iri(predicate), int(row["c"].value)

    def _relation_degrees_to(self, ids: Sequence[str], cap: int) -> Iterable[tuple[str, str, int]]:
        """Each entity's edges counted per relation by a query that reads at most
        `DEGREE_ROWS` of them each way; past that, a hub's count of each relation is read
        from that relation's index range, both ways, stopping at `cap` (a few reads a
        relation, however big the hub). An exact count's GROUP BY would read every edge of a
        hub, longer the bigger the hub. The adjacency index, where there is one, counts each
        relation of an entity up to `cap` both ways, a seek a relation."""
        if self._adjacency is not None:
            for source in ids:
                for way in (OUT, IN):
                    for relation, count in self._adjacency.relation_counts(source, way, cap).items():
                        yield source, relation, count
            return
        predicates: list[tuple[ox.NamedNode, str]] | None = None  # read once a call, where a hub needs them
        for source in ids:
            counts: dict[str, int] = {}
            read = {"out": 0, "in": 0}
            for row in self._select(sparql_text.bounded_degrees_query(source, DEGREE_ROWS)):
                predicate, count = row["p"].value, int(row["c"].value)
                read[row["d"].value] += count
                if not is_internal_iri(predicate):
                    relation = from_iri(predicate)
                    counts[relation] = counts.get(relation, 0) + count
            if DEGREE_ROWS in read.values():
                if predicates is None:
                    predicates = [(ox.NamedNode(p), from_iri(p)) for p in sorted(self._predicate_iris())]
                counts = self._capped_degrees(source, cap, predicates)
            for relation, count in counts.items():
                yield source, relation, count

    def _capped_degrees(self, source: str, cap: int, predicates: list[tuple[ox.NamedNode, str]]) -> dict[str, int]:
        """A hub's facts per relation (`predicates`: each relation's node and id), each count
        stopping at `cap`."""
        named_node, quads_for = ox.NamedNode, self._store.quads_for_pattern
        node = named_node(to_iri(source))
        counts: dict[str, int] = {}
        for relation_node, relation in predicates:
            count = 0
            for quad in quads_for(node, relation_node, None, _DEFAULT):
                if type(quad.object) is named_node:  # literals are attributes, not neighbours
                    count += 1
                    if count == cap:
                        break
            if count < cap:
                for _ in zip(range(cap - count), quads_for(None, relation_node, node, _DEFAULT), strict=False):
                    count += 1
            if count:
                counts[relation] = count
        return counts

    # ---- the relations side file -----------------------------------------------------
    def _predicate_iris(self) -> set[str]:
        """The predicate IRIs the store holds, internal ones aside: from memory or the side
        file, else read from the store once (and the side file written, where it can be)."""
        known = self._known_predicates()
        if known is None:
            rows = self._select(sparql_text.relation_names_query())
            known = {r["p"].value for r in rows if not is_internal_iri(r["p"].value)}
            self._keep_predicates(known, replace=False)  # a writer's list, come meanwhile, is newer
        return known

    def _known_predicates(self) -> set[str] | None:
        if self._predicates is None and self._predicates_path is not None:
            try:
                listed = json.loads(self._predicates_path.read_text(encoding="utf-8"))
                if isinstance(listed, list) and all(isinstance(p, str) for p in listed):
                    self._predicates = set(listed)
            except (OSError, ValueError):  # none yet, or torn: read from the store instead
                pass
        return self._predicates

    def _keep_predicates(self, predicates: set[str], *, replace: bool = True) -> None:
        """Remember them, and write the side file whole in one step (no reader sees half of
        it); with `replace` False only where there is none yet. A folder this process may
        not write to keeps them in memory only."""
        self._predicates = set(predicates)
        if self._predicates_path is None:
            return
        partial = self._predicates_path.with_name(f"{RELATIONS_FILE}.{os.getpid()}-{threading.get_ident()}")
        try:
            partial.write_text(json.dumps(sorted(predicates)), encoding="utf-8")
            if replace:
                os.replace(partial, self._predicates_path)
            else:
                os.link(partial, self._predicates_path)
        except OSError:  # FileExistsError included: the file another process wrote stands
            pass
        finally:
            partial.unlink(missing_ok=True)

    def _entities_with(self, relation: str, direction: Direction, limit: int) -> list[str]:
        rows = self._select(sparql_text.entities_with_query(relation, direction, limit))
        return [from_iri(r[0].value) for r in rows]

    def stats(self) -> StoreStats:
        counts = {k: int(self._select(q)[0]["c"].value) for k, q in sparql_text.stats_queries().items()}
        return StoreStats(**counts)

