"""Embedded Oxigraph (pyoxigraph), on disk: the default store, no server needed.

URL: `oxigraph:PATH` (a folder, created on first write) or `oxigraph:` for an in-memory
store. Neighbour and name lookups go straight to the quad indexes (no SPARQL parsing);
search and statistics run the same strictly escaped SPARQL as the remote backend.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

import pyoxigraph as ox

from kg_store import sparql_text
from kg_store.base import DirectionFilter, GraphStore
from kg_store.errors import StoreUnavailable
from kg_store.ids import NAME_IRI, NORM_NAME_IRI, from_iri, is_internal_iri, to_iri
from kg_store.model import Direction, Edge, EntityMatch, LoadBatch, Neighborhood, StoreStats

_NAME = ox.NamedNode(NAME_IRI)
_DEFAULT = ox.DefaultGraph()


class OxigraphStore(GraphStore):
    write_batch_size = 200_000

    def __init__(self, url: str, path: str | Path | None, *, read_only: bool = False, **kwargs) -> None:
        super().__init__(url, **kwargs)
        self.path = Path(path) if path else None
        self.read_only = read_only
        try:
            if self.path is None:
                self._store = ox.Store()
            elif read_only:
                if not (self.path / "CURRENT").exists():  # RocksDB's marker of an existing store
                    raise StoreUnavailable(f"no Oxigraph store at {url} yet: load data into it with `kgqa load`")
                self._store = ox.Store.read_only(str(self.path))
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                self._store = ox.Store(str(self.path))
        except OSError as exc:  # locked by another process, unreadable, not a store
            raise StoreUnavailable(f"cannot open Oxigraph store at {url}: {exc}") from exc
        # Neighbours' ids and names are looked up again and again during walks (PoG caches
        # names too): IRI -> (id, name), cleared on every write and when past the cap.
        self._nodes: dict[str, tuple[str, str | None]] = {}
        self._nodes_cap = 500_000
        self._relation_ids: dict[str, str] = {}  # predicate IRI -> relation id

    def close(self) -> None:
        if self.path is not None and not self.read_only:
            self._store.flush()

    def after_load(self) -> None:
        # Merge the SST files bulk_load wrote; otherwise background compaction competes
        # with the first queries and every lookup reads more files.
        self._store.optimize()

    def clear(self) -> None:
        self._store.clear()
        self._nodes.clear()

    # ---- writes ----------------------------------------------------------------------
    def write(self, batch: LoadBatch) -> None:
        if len(batch):
            self._nodes.clear()
            # bulk_load parses in Rust and skips the transaction log: the fast path. Every
            # term was built and checked by sparql_text, so Oxigraph's re-validation is skipped.
            self._store.bulk_load(
                input=sparql_text.ntriples(batch).encode(), format=ox.RdfFormat.N_TRIPLES, lenient=True
            )

    # ---- reads -----------------------------------------------------------------------
    def _neighbors(
        self,
        ids: Sequence[str],
        direction: DirectionFilter,
        relations: Collection[str] | None,
        limit_per_entity: int | None,
    ) -> Neighborhood:
        rel_nodes = [ox.NamedNode(to_iri(r)) for r in relations] if relations else [None]
        nodes, relation_ids, named_node = self._nodes, self._relation_ids, ox.NamedNode
        if len(nodes) > self._nodes_cap:
            nodes.clear()
        quads_for = self._store.quads_for_pattern
        hood = Neighborhood(edges={})
        for source in ids:
            node = named_node(to_iri(source))
            edges: list[Edge] = []
            for dir_name in ("out", "in"):
                if direction not in (dir_name, "both"):
                    continue
                count = 0
                for rel in rel_nodes:
                    quads = quads_for(node, rel, None, _DEFAULT) if dir_name == "out" else quads_for(None, rel, node, _DEFAULT)
                    for quad in quads:
                        other = quad.object if dir_name == "out" else quad.subject
                        # Names, normalised names and attributes are literals: not neighbours.
                        if type(other) is not named_node:
                            continue
                        predicate = quad.predicate.value
                        relation = relation_ids.get(predicate)
                        if relation is None:
                            if is_internal_iri(predicate):
                                continue
                            relation = relation_ids[predicate] = from_iri(predicate)
                        if limit_per_entity is not None and count == limit_per_entity:
                            hood.truncated.add(source)
                            break
                        other_iri = other.value
                        known = nodes.get(other_iri)
                        if known is None:
                            known = nodes[other_iri] = (from_iri(other_iri), self._name_of(other))
                        edges.append(Edge(source, relation, known[0], known[1], dir_name))  # type: ignore[arg-type]
                        count += 1
                    if source in hood.truncated:
                        break
            hood.edges[source] = edges
        return hood

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
        found = {}
        for i in ids:
            iri = to_iri(i)
            if iri not in self._nodes:
                self._nodes[iri] = (i, self._name_of(ox.NamedNode(iri)))
            found[i] = self._nodes[iri][1]
        return found

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

    def _select(self, query: str) -> list[ox.QuerySolution]:
        return list(self._store.query(query))

    def _search_exact(self, text: str, normalized: str, limit: int) -> list[EntityMatch]:
        return _matches(self._select(sparql_text.search_exact_query(text, normalized, limit)))

    def _search_partial(self, normalized: str, limit: int) -> list[EntityMatch]:
        return _matches(self._select(sparql_text.search_partial_query(normalized, limit)))

    def _relation_counts(self) -> dict[str, int]:
        rows = self._select(sparql_text.relation_counts_query())
        return {from_iri(r["p"].value): int(r["c"].value) for r in rows if not is_internal_iri(r["p"].value)}

    def _entities_with(self, relation: str, direction: Direction, limit: int) -> list[str]:
        rows = self._select(sparql_text.entities_with_query(relation, direction, limit))
        return [from_iri(r[0].value) for r in rows]

    def stats(self) -> StoreStats:
        counts = {k: int(self._select(q)[0]["c"].value) for k, q in sparql_text.stats_queries().items()}
        return StoreStats(**counts)


def _matches(rows: list[ox.QuerySolution]) -> list[EntityMatch]:
    return [sparql_text.entity_match(r["e"].value, r["n"].value, r["kind"].value) for r in rows]
