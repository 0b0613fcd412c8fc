"""Neo4j over Bolt with the official driver; every value travels as a query parameter.

Data model: `(:Entity {id, name, name_norm})` nodes joined by relationships *typed with
the Freebase relation* (`-[:`film.actor.film`]->`), literal attributes as
`(:Entity)-[:`rel`]->(:Literal {key, value})`. Why typed relationships rather than one
`:REL {type}` relationship: the type lives in the relationship record, so expanding a
node and filtering by relation needs no property reads, `neo4j-admin import` takes it as
the `:TYPE` column, and Neo4j's limit (65k types in the record format, far more in block
format) is well above Freebase's ~20k relations. Relation types cannot be parameters in
Cypher, so writes group rows by type and backtick-quote the type (backticks doubled);
reads never paste a type: they filter with `type(r) IN $relations`.

URL: `bolt://[user:password@]HOST:PORT[?database=NAME]` (also neo4j://, +s, +ssc).
FalkorDB answers on a Bolt port too: `kg_store.registry.open_store` tells the two apart
and opens `kg_store.falkordb.FalkorDBStore` (this class with FalkorDB's dialect) for it.
Names: a full-text (Lucene) index on the normalised names, `kgqa_entity_name_text`,
whitespace analyzer (the names are normalised already); partial search asks it with every
query token as a required prefix term, Lucene's special characters escaped, the query
string a parameter.
Queries run in the driver's managed transactions, which retry a dropped connection or a
transient error within `max_transaction_retry_time`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Any

from neo4j import Driver

from kg_store.base import DirectionFilter, GraphStore
from kg_store.bolt import bolt_target, run_query
from kg_store.ids import check_id, normalize_name
from kg_store.model import Direction, Edge, EntityMatch, LoadBatch, Neighborhood, StoreStats

#: The full-text index of the normalised names.
NAME_TEXT_INDEX = "kgqa_entity_name_text"
#: Full-text hits (best Lucene score first) among which the shortest names are kept.
TEXT_POOL = 1_000
_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/\s])')


def lucene_query(tokens: Sequence[str]) -> str:
    """Every token required, as itself or as a prefix: `+(tom OR tom*) +(han OR han*)`;
    a whole-word hit scores higher. Lucene's operators and special characters in a token
    are escaped with a backslash (and lowercase `and`/`or`/`not` are words to Lucene)."""
    escaped = [_LUCENE_SPECIAL.sub(r"\\\1", t) for t in tokens]
    return " ".join(f"+({t} OR {t}*)" for t in escaped)


def quote_rel_type(relation: str) -> str:
    """Backtick-quote a relationship type for Cypher text: the only non-parameter value.
    Neo4j reads a doubled backtick inside the quotes as one."""
    return "`" + check_id(relation).replace("`", "``") + "`"


# The edges of (s) a read in each direction follows: to other entities only.
_EDGE_PATTERNS = (("out", "(s)-[r]->(n:Entity)"), ("in", "(s)<-[r]-(n:Entity)"))


class Neo4jStore(GraphStore):
    #: ids per read query (frontier batches)
    batch_size = 500
    #: rows per write query
    write_batch_size = 5_000

    def __init__(self, url: str, driver: Driver, *, database: str | None = None, **kwargs: Any) -> None:
        """Over an open driver (`kg_store.registry.open_store` makes one from the URL); closes it on close()."""
        super().__init__(url, **kwargs)
        self.uri, self.database = bolt_target(url)[0], database
        self._driver = driver
        self._ensure_indexes()

    # ---- transport ---------------------------------------------------------------------
    def _rel_type(self, relation: str) -> str:
        return quote_rel_type(relation)

    def _params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Parameters as this server needs them (a dialect hook)."""
        return params

    def _chunks(self, rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
        for start in range(0, len(rows), self.write_batch_size):
            yield rows[start : start + self.write_batch_size]

    def _run(self, query: str, *, write: bool = False, **params: Any) -> list[dict[str, Any]]:
        return run_query(self._driver, self.database, self.uri, query, self._params(params), write=write)

    def close(self) -> None:
        self._driver.close()

    def _ensure_indexes(self) -> None:
        for statement in (
            "CREATE CONSTRAINT kgqa_entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE",
            "CREATE INDEX kgqa_entity_name IF NOT EXISTS FOR (e:Entity) ON (e.name)",
            "CREATE INDEX kgqa_entity_name_norm IF NOT EXISTS FOR (e:Entity) ON (e.name_norm)",
            "CREATE CONSTRAINT kgqa_literal_key IF NOT EXISTS FOR (l:Literal) REQUIRE l.key IS UNIQUE",
            "CREATE INDEX kgqa_literal_value IF NOT EXISTS FOR (l:Literal) ON (l.value)",  # a value topic's holders
            (f"CREATE FULLTEXT INDEX {NAME_TEXT_INDEX} IF NOT EXISTS FOR (e:Entity) ON EACH [e.name_norm] "
             "OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', `fulltext.eventually_consistent`: false}}"),
        ):
            self._run(statement, write=True)
        # A new full-text index fills in the background and answers only when online (on
        # a store that had names before it, that takes a while once).
        self._run("CALL db.awaitIndexes(300)")

    # ---- writes ------------------------------------------------------------------------
    def clear(self) -> None:
        self._values = None
        while self._run("MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS c", write=True)[0]["c"]:
            pass

    def write(self, batch: LoadBatch) -> None:
        names = [{"id": check_id(e), "name": n, "norm": normalize_name(n)} for e, n in batch.names]
        for chunk in self._chunks(names):
            self._run(
                "UNWIND $rows AS row MERGE (e:Entity {id: row.id}) "
                "SET e.name = coalesce(e.name, row.name), e.name_norm = coalesce(e.name_norm, row.norm)",
                write=True, rows=chunk,
            )
        by_type: dict[str, list[dict[str, str]]] = defaultdict(list)
        for t in batch.triples:
            by_type[t.relation].append({"h": check_id(t.head), "t": check_id(t.tail)})
        for relation, rows in by_type.items():
            query = (
                "UNWIND $rows AS row MERGE (h:Entity {id: row.h}) MERGE (t:Entity {id: row.t}) "
                f"MERGE (h)-[:{self._rel_type(relation)}]->(t)"
            )
            for chunk in self._chunks(rows):
                self._run(query, write=True, rows=chunk)
        literals: dict[str, list[dict[str, str | None]]] = defaultdict(list)
        if batch.attributes:
            self._values = None
        for a in batch.attributes:
            literals[a.relation].append({"s": check_id(a.subject), "key": a.key, "value": a.value,
                                         "lang": a.lang, "datatype": a.datatype})
        for relation, rows in literals.items():
            query = (
                "UNWIND $rows AS row MERGE (s:Entity {id: row.s}) "
                "MERGE (l:Literal {key: row.key}) SET l.value = row.value, l.lang = row.lang, l.datatype = row.datatype "
                f"MERGE (s)-[:{self._rel_type(relation)}]->(l)"
            )
            for chunk in self._chunks(rows):
                self._run(query, write=True, rows=chunk)

    # ---- reads -------------------------------------------------------------------------
    def _neighbors(
        self,
        ids: Sequence[str],
        direction: DirectionFilter,
        relations: Collection[str] | None,
        limit_per_entity: int | None,
    ) -> Neighborhood:
        rel_filter = "WHERE type(r) IN $rels " if relations else ""
        # Rows, never collect(): FalkorDB wedges on a record over 64 KiB (a hub's list).
        # With a cap, a per-entity sub-query with LIMIT cap+1: the extra row says "cut".
        limit = "LIMIT $cap " if limit_per_entity else ""
        branches = []
        for dir_name, pattern in _EDGE_PATTERNS:
            if direction in (dir_name, "both"):
                branches.append(
                    "UNWIND $ids AS sid MATCH (s:Entity {id: sid}) "
                    f"CALL {{ WITH s MATCH {pattern} {rel_filter}"
                    f"RETURN type(r) AS rel, n.id AS nid, n.name AS nname {limit}}} "
                    f"RETURN sid AS sid, '{dir_name}' AS dir, rel AS rel, nid AS nid, nname AS nname"
                )
        params: dict[str, Any] = {"ids": list(ids)}
        if relations:
            params["rels"] = [check_id(r) for r in relations]
        if limit_per_entity:
            params["cap"] = limit_per_entity + 1
        hood = Neighborhood(edges={i: [] for i in ids})
        counts: dict[tuple[str, str], int] = {}
        for row in self._run(" UNION ALL ".join(branches), **params):
            source, dir_name = row["sid"], row["dir"]
            n = counts.get((source, dir_name), 0)
            if limit_per_entity and n == limit_per_entity:
                hood.truncated.add(source)
                continue
            counts[(source, dir_name)] = n + 1
            hood.edges[source].append(Edge(source, row["rel"], row["nid"], row["nname"], dir_name))
        return hood

    def _edges_of(self, pairs: Sequence[tuple[str, str]], direction: DirectionFilter) -> Neighborhood:
        # All pairs in one round trip (the base reads one entity at a time).
        branches = [
            "UNWIND $pairs AS p MATCH (s:Entity {id: p[0]}) "
            f"MATCH {pattern} WHERE type(r) = p[1] "
            f"RETURN p[0] AS sid, '{dir_name}' AS dir, type(r) AS rel, n.id AS nid, n.name AS nname"
            for dir_name, pattern in _EDGE_PATTERNS
            if direction in (dir_name, "both")
        ]
        hood = Neighborhood(edges={entity: [] for entity, _ in pairs})
        for row in self._run(" UNION ALL ".join(branches), pairs=[[check_id(e), check_id(r)] for e, r in pairs]):
            hood.edges[row["sid"]].append(Edge(row["sid"], row["rel"], row["nid"], row["nname"], row["dir"]))
        return hood

    def names(self, ids: Sequence[str]) -> dict[str, str | None]:
        found: dict[str, str | None] = {check_id(i): None for i in ids}
        for start in range(0, len(ids), self.batch_size):
            part = list(ids[start : start + self.batch_size])
            for row in self._run("UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN i AS id, e.name AS name", ids=part):
                found[row["id"]] = row["name"]
        return found

    def attributes(self, ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        found: dict[str, list[tuple[str, str]]] = {check_id(i): [] for i in ids}
        rows = self._run(
            "UNWIND $ids AS i MATCH (e:Entity {id: i})-[r]->(l:Literal) RETURN i AS id, type(r) AS rel, l.value AS value",
            ids=list(ids),
        )
        for row in rows:
            found[row["id"]].append((row["rel"], row["value"]))
        return found

    def _holders(self, value: str, limit: int | None) -> list[tuple[str, str]]:
        bound = "LIMIT $limit" if limit is not None else ""
        rows = self._run(f"MATCH (e:Entity)-[r]->(l:Literal) WHERE l.value = $value RETURN type(r) AS rel, e.id AS id {bound}",
                         value=value, **({"limit": limit + 1} if limit is not None else {}))
        return [(row["rel"], row["id"]) for row in rows]

    def _probe_values(self) -> bool:
        return bool(self._run("MATCH (l:Literal) RETURN 1 AS one LIMIT 1"))

    def _search_exact(self, text: str, normalized: str, limit: int) -> list[EntityMatch]:
        rows = self._run(
            "MATCH (e:Entity) WHERE e.name = $text RETURN e.id AS id, e.name AS name, 'exact' AS kind LIMIT $limit "
            "UNION ALL MATCH (e:Entity) WHERE e.name_norm = $norm "
            "RETURN e.id AS id, e.name AS name, 'normalized' AS kind LIMIT $limit",
            text=text, norm=normalized, limit=limit * 4,
        )
        return [EntityMatch.of(r["id"], r["name"], r["kind"]) for r in rows]

    def _partial_candidates(self, normalized: str, tokens: list[str], limit: int) -> list[tuple[str, str, str]]:
        return [(row["id"], row["name"], row["norm"]) for row in self._text_search(normalized, tokens, limit)]

    def _text_search(self, normalized: str, tokens: list[str], limit: int) -> list[dict[str, Any]]:
        """The shortest of the full-text index's best hits, and names starting with the
        query (the range index on name_norm answers STARTS WITH)."""
        return self._run(
            f"CALL db.index.fulltext.queryNodes('{NAME_TEXT_INDEX}', $q) YIELD node, score "
            "WITH node, score ORDER BY score DESC LIMIT $pool WITH node ORDER BY size(node.name_norm) LIMIT $limit "
            "RETURN node.id AS id, node.name AS name, node.name_norm AS norm "
            "UNION MATCH (e:Entity) WHERE e.name_norm STARTS WITH $norm "
            "RETURN e.id AS id, e.name AS name, e.name_norm AS norm LIMIT $limit",
            q=lucene_query(tokens), norm=normalized, pool=TEXT_POOL, limit=limit,
        )

    def _relation_degrees(self, ids: Sequence[str]) -> Iterable[tuple[str, str, int]]:
        rows = self._run(
            "UNWIND $ids AS i MATCH (:Entity {id: i})-[r]->(:Entity) RETURN i AS id, type(r) AS rel, count(r) AS c "
            "UNION ALL UNWIND $ids AS i MATCH (:Entity {id: i})<-[r]-(:Entity) RETURN i AS id, type(r) AS rel, count(r) AS c",
            ids=list(ids),
        )
        return [(row["id"], row["rel"], int(row["c"])) for row in rows]

    def _relation_counts(self) -> dict[str, int]:
        rows = self._run("MATCH (:Entity)-[r]->(:Entity) RETURN type(r) AS rel, count(r) AS c")
        return {row["rel"]: int(row["c"]) for row in rows}

    def _entities_with(self, relation: str, direction: Direction, limit: int) -> list[str]:
        edge = f"[:{self._rel_type(relation)}]"  # a type is no parameter in Cypher: strictly quoted instead
        pattern = f"(e:Entity)-{edge}->(:Entity)" if direction == "out" else f"(e:Entity)<-{edge}-(:Entity)"
        rows = self._run(f"MATCH {pattern} RETURN DISTINCT e.id AS id LIMIT $limit", limit=limit)
        return [row["id"] for row in rows]

    def stats(self) -> StoreStats:
        triples = self._run("MATCH ()-[r]->() RETURN count(r) AS c")[0]["c"]
        relations = self._run("MATCH ()-[r]->() RETURN count(DISTINCT type(r)) AS c")[0]["c"]
        entities = self._run("MATCH (e:Entity) RETURN count(e) AS c")[0]["c"]
        return StoreStats(triples=int(triples), entities=int(entities), relations=int(relations))


