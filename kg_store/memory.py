"""In-memory reference backend: plain dicts, the behaviour other backends must match.

Used by unit tests and as the speed floor in benchmarks. `memory:` URL; nothing persists.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence

from kg_store.base import DirectionFilter, GraphStore
from kg_store.ids import check_id, normalize_name
from kg_store.model import Direction, Edge, EntityMatch, LoadBatch, Neighborhood, StoreStats


class MemoryStore(GraphStore):
    def __init__(self, url: str = "memory:", **kwargs) -> None:
        super().__init__(url, **kwargs)
        self.clear()

    def clear(self) -> None:
        # out[h][(r, t)] and inn[t][(r, h)]: dict-as-ordered-set keeps insertion order.
        self._out: dict[str, dict[tuple[str, str], None]] = defaultdict(dict)
        self._in: dict[str, dict[tuple[str, str], None]] = defaultdict(dict)
        self._names: dict[str, str] = {}
        self._by_name: dict[str, set[str]] = defaultdict(set)
        self._by_norm: dict[str, set[str]] = defaultdict(set)
        # The token index: name token -> normalised names holding it; its sorted tokens
        # (for prefix ranges) are rebuilt at the first search after a write.
        self._by_token: dict[str, set[str]] = defaultdict(set)
        self._sorted_tokens: list[str] | None = None
        self._attrs: dict[str, dict[tuple[str, str], None]] = defaultdict(dict)
        self._held: dict[str, dict[tuple[str, str], None]] = defaultdict(dict)  # value -> (relation, subject)
        self._values = None

    def write(self, batch: LoadBatch) -> None:
        for t in batch.triples:
            self._out[check_id(t.head)][(check_id(t.relation), check_id(t.tail))] = None
            self._in[t.tail][(t.relation, t.head)] = None
        for entity, name in batch.names:
            check_id(entity)
            if entity not in self._names:  # first name wins, as in the RDF loaders' @en preference
                self._names[entity] = name
                self._by_name[name].add(entity)
                norm = normalize_name(name)
                self._by_norm[norm].add(entity)
                for token in norm.split():
                    if norm not in self._by_token[token]:
                        self._by_token[token].add(norm)
                        self._sorted_tokens = None
        for a in batch.attributes:
            self._attrs[check_id(a.subject)][(a.relation, a.value)] = None
            self._held[a.value][(a.relation, a.subject)] = None
        if batch.attributes:
            self._values = None

    def _neighbors(
        self,
        ids: Sequence[str],
        direction: DirectionFilter,
        relations: Collection[str] | None,
        limit_per_entity: int | None,
    ) -> Neighborhood:
        wanted = set(relations) if relations else None
        hood = Neighborhood(edges={})
        for source in ids:
            edges: list[Edge] = []
            for dir_name, index in (("out", self._out), ("in", self._in)):
                if direction not in (dir_name, "both") or source not in index:
                    continue
                count = 0
                for rel, other in index[source]:
                    if wanted is not None and rel not in wanted:
                        continue
                    if limit_per_entity is not None and count == limit_per_entity:
                        hood.truncated.add(source)
                        break
                    edges.append(Edge(source, rel, other, self._names.get(other), dir_name))  # type: ignore[arg-type]
                    count += 1
            hood.edges[source] = edges
        return hood

    def names(self, ids: Sequence[str]) -> dict[str, str | None]:
        return {i: self._names.get(check_id(i)) for i in ids}

    def attributes(self, ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        return {i: list(self._attrs.get(check_id(i), ())) for i in ids}

    def _holders(self, value: str, limit: int | None) -> list[tuple[str, str]]:
        return list(self._held.get(value, ()))

    def _probe_values(self) -> bool:
        return bool(self._attrs)

    def _search_exact(self, text: str, normalized: str, limit: int) -> list[EntityMatch]:
        hits = [EntityMatch.of(e, text, "exact") for e in self._by_name.get(text, ())]
        return hits + [EntityMatch.of(e, self._names[e], "normalized") for e in self._by_norm.get(normalized, ())]

    def _partial_candidates(self, normalized: str, tokens: list[str], limit: int) -> Iterator[tuple[str, str, str]]:
        # Every match, not only the shortest: the reference answer the indexes approximate.
        if self._sorted_tokens is None:
            self._sorted_tokens = sorted(self._by_token)
        vocabulary = self._sorted_tokens
        norms: set[str] | None = None
        for query_token in sorted(tokens, key=len, reverse=True):  # the rarest first, usually
            having: set[str] = set()
            for i in range(bisect.bisect_left(vocabulary, query_token), len(vocabulary)):
                if not vocabulary[i].startswith(query_token):
                    break
                having |= self._by_token[vocabulary[i]]
            norms = having if norms is None else norms & having
            if not norms:
                return
        for norm in norms or ():
            yield from ((e, self._names[e], norm) for e in self._by_norm[norm])

    def _relation_degrees(self, ids: Sequence[str]) -> Iterable[tuple[str, str, int]]:
        for entity in ids:
            for index in (self._out, self._in):
                yield from ((entity, r, n) for r, n in Counter(r for r, _ in index.get(entity, ())).items())

    def _relation_counts(self) -> dict[str, int]:
        return dict(Counter(r for edges in self._out.values() for r, _ in edges))

    def _entities_with(self, relation: str, direction: Direction, limit: int) -> list[str]:
        index = self._out if direction == "out" else self._in
        return [e for e, edges in index.items() if any(r == relation for r, _ in edges)][:limit]

    def stats(self) -> StoreStats:
        entities = set(self._out) | set(self._in) | set(self._names)
        relations = {r for edges in self._out.values() for r, _ in edges}
        n_attrs = sum(len(v) for v in self._attrs.values())
        return StoreStats(
            triples=sum(len(v) for v in self._out.values()) + n_attrs,
            entities=len(entities),
            relations=len(relations | {r for v in self._attrs.values() for r, _ in v}),
        )
