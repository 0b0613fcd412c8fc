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
Also speaks to FalkorDB's Bolt port (CI), whose quirks are handled here: a failing
second handshake (retried), small message limits (small batches), no `IF NOT EXISTS`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Collection, Iterator, Sequence
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit, urlunsplit

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ClientError, DatabaseError, Neo4jError, ServiceUnavailable, SessionExpired

from kg_store.base import DirectionFilter, GraphStore
from kg_store.errors import InvalidId, StoreAuthError, StoreQueryError, StoreUnavailable
from kg_store.ids import check_id, normalize_name
from kg_store.model import Direction, Edge, EntityMatch, LoadBatch, Neighborhood, StoreStats
from kg_store.servers.falkordb import MAX_PARAM_BYTES, falkordb_params, param_bytes

_RETRIES = 4


def quote_rel_type(relation: str, *, allow_backtick: bool = True) -> str:
    """Backtick-quote a relationship type for Cypher text: the only non-parameter value.
    Neo4j reads a doubled backtick inside the quotes as one; FalkorDB cannot, so there a
    type containing a backtick is refused rather than risked."""
    check_id(relation)
    if "`" in relation and not allow_backtick:
        raise InvalidId(f"relation {relation!r}: FalkorDB cannot store a relationship type containing '`'")
    return "`" + relation.replace("`", "``") + "`"


class Neo4jStore(GraphStore):
    def __init__(
        self,
        url: str,
        *,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(url, **kwargs)
        parts = urlsplit(url)
        netloc = parts.hostname or "localhost"
        if parts.port:
            netloc += f":{parts.port}"
        self.uri = urlunsplit((parts.scheme, netloc, "", "", ""))
        self.database = database or parse_qs(parts.query).get("database", [None])[0]
        user = user or (unquote(parts.username) if parts.username else None)
        password = password or (unquote(parts.password) if parts.password else None)
        auth = (user, password or "") if user else None
        # A short acquisition timeout: FalkorDB sometimes leaves a fresh handshake hanging,
        # and the driver's default would wait 60 s before our retry.
        self._driver = GraphDatabase.driver(
            self.uri, auth=auth, connection_timeout=10, connection_acquisition_timeout=5, max_connection_lifetime=3600
        )
        self._server_agent()  # fails fast, with the URL, when the server is down or refuses us
        self.is_falkordb = False  # until detected: no FalkorDB escaping for the probe
        self.is_falkordb = self._detect_falkordb()
        # FalkorDB renders parameters into a ~4 KB buffer and aborts beyond it: frontier
        # batches stay small there and writes are cut by rendered size (_chunks).
        self.batch_size = 25 if self.is_falkordb else 500
        self.write_batch_size = 5_000
        self._ensure_indexes()

    # ---- transport ---------------------------------------------------------------------
    def _server_agent(self) -> str:
        for attempt in range(_RETRIES):
            try:
                return self._driver.get_server_info().agent or ""
            except AuthError as exc:
                raise StoreAuthError(f"Neo4j at {self.uri} refused the credentials: {exc.message}") from exc
            except (ServiceUnavailable, SessionExpired, OSError) as exc:
                if attempt == _RETRIES - 1:
                    raise StoreUnavailable(f"cannot reach Neo4j at {self.uri}: {exc}") from exc
                time.sleep(0.2 * (attempt + 1))
        return ""

    def _rel_type(self, relation: str) -> str:
        return quote_rel_type(relation, allow_backtick=not self.is_falkordb)

    def _chunks(self, rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
        """Write batches: row count bounded, and on FalkorDB also rendered size."""
        if not self.is_falkordb:
            for start in range(0, len(rows), self.write_batch_size):
                yield rows[start : start + self.write_batch_size]
            return
        chunk: list[dict[str, Any]] = []
        size = 0
        for row in rows:
            row_size = param_bytes({"r": [row]})
            if chunk and size + row_size > MAX_PARAM_BYTES - 200:
                yield chunk
                chunk, size = [], 0
            chunk.append(row)
            size += row_size
        if chunk:
            yield chunk

    def _detect_falkordb(self) -> bool:
        # FalkorDB announces itself as "Neo4j/5.x" over Bolt; it lacks dbms.components().
        try:
            self._run("CALL dbms.components() YIELD name RETURN name")
            return False
        except StoreQueryError:
            return True

    def _run(self, query: str, **params: Any) -> list[dict[str, Any]]:
        if self.is_falkordb:
            try:
                params = falkordb_params(params)
            except ValueError as exc:
                raise InvalidId(str(exc)) from exc
        for attempt in range(_RETRIES):
            try:
                with self._driver.session(database=self.database) as session:
                    return [record.data() for record in session.run(query, params)]
            except AuthError as exc:
                raise StoreAuthError(f"Neo4j at {self.uri} refused the credentials: {exc.message}") from exc
            except (ServiceUnavailable, SessionExpired) as exc:
                # FalkorDB drops every other fresh handshake; a real outage fails all tries.
                if attempt == _RETRIES - 1:
                    raise StoreUnavailable(f"cannot reach Neo4j at {self.uri}: {exc}") from exc
                time.sleep(0.1 * (attempt + 1))
            except (ClientError, DatabaseError, Neo4jError) as exc:
                raise StoreQueryError(f"{self.uri}: query failed: {exc.message or exc}") from exc
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._driver.close()

    def _ensure_indexes(self) -> None:
        if self.is_falkordb:
            # No IF NOT EXISTS, and every error arrives as "unknown" over Bolt: ask first.
            existing = {
                (row["label"], prop)
                for row in self._run("CALL db.indexes() YIELD label, properties RETURN label, properties")
                for prop in row["properties"]
            }
            for label, prop in (("Entity", "id"), ("Entity", "name"), ("Entity", "name_norm"), ("Literal", "key")):
                if (label, prop) not in existing:
                    self._run(f"CREATE INDEX FOR (x:{label}) ON (x.{prop})")
            return
        for statement in (
            "CREATE CONSTRAINT kgqa_entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE",
            "CREATE INDEX kgqa_entity_name IF NOT EXISTS FOR (e:Entity) ON (e.name)",
            "CREATE INDEX kgqa_entity_name_norm IF NOT EXISTS FOR (e:Entity) ON (e.name_norm)",
            "CREATE CONSTRAINT kgqa_literal_key IF NOT EXISTS FOR (l:Literal) REQUIRE l.key IS UNIQUE",
        ):
            self._run(statement)

    # ---- writes ------------------------------------------------------------------------
    def clear(self) -> None:
        while self._run("MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS c")[0]["c"]:
            pass

    def write(self, batch: LoadBatch) -> None:
        names = [{"id": check_id(e), "name": n, "norm": normalize_name(n)} for e, n in batch.names]
        for chunk in self._chunks(names):
            self._run(
                "UNWIND $rows AS row MERGE (e:Entity {id: row.id}) "
                "SET e.name = coalesce(e.name, row.name), e.name_norm = coalesce(e.name_norm, row.norm)",
                rows=chunk,
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
                self._run(query, rows=chunk)
        literals: dict[str, list[dict[str, str | None]]] = defaultdict(list)
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
                self._run(query, rows=chunk)

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
        for dir_name, pattern in (("out", "(s)-[r]->(n:Entity)"), ("in", "(s)<-[r]-(n:Entity)")):
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

    def _search_exact(self, text: str, normalized: str, limit: int) -> list[EntityMatch]:
        rows = self._run(
            "MATCH (e:Entity) WHERE e.name = $text RETURN e.id AS id, e.name AS name, 'exact' AS kind LIMIT $limit "
            "UNION ALL MATCH (e:Entity) WHERE e.name_norm = $norm "
            "RETURN e.id AS id, e.name AS name, 'normalized' AS kind LIMIT $limit",
            text=text, norm=normalized, limit=limit * 4,
        )
        return [EntityMatch.of(r["id"], r["name"], r["kind"]) for r in rows]

    def _search_partial(self, normalized: str, limit: int) -> list[EntityMatch]:
        rows = self._run(
            "MATCH (e:Entity) WHERE e.name_norm STARTS WITH $norm "
            "RETURN e.id AS id, e.name AS name, 'prefix' AS kind LIMIT $limit "
            "UNION ALL MATCH (e:Entity) WHERE e.name_norm CONTAINS $norm AND NOT e.name_norm STARTS WITH $norm "
            "RETURN e.id AS id, e.name AS name, 'contains' AS kind LIMIT $limit",
            norm=normalized, limit=limit * 4,
        )
        return [EntityMatch.of(r["id"], r["name"], r["kind"]) for r in rows]

    def _relation_counts(self) -> dict[str, int]:
        rows = self._run("MATCH (:Entity)-[r]->(:Entity) RETURN type(r) AS rel, count(r) AS c")
        return {row["rel"]: int(row["c"]) for row in rows}

    def _entities_with(self, relation: str, direction: Direction, limit: int) -> list[str]:
        try:
            edge = f"[:{self._rel_type(relation)}]"  # a type is no parameter in Cypher: strictly quoted instead
        except InvalidId:  # a type FalkorDB cannot hold: no fact has it
            return []
        pattern = f"(e:Entity)-{edge}->(:Entity)" if direction == "out" else f"(e:Entity)<-{edge}-(:Entity)"
        rows = self._run(f"MATCH {pattern} RETURN DISTINCT e.id AS id LIMIT $limit", limit=limit)
        return [row["id"] for row in rows]

    def stats(self) -> StoreStats:
        triples = self._run("MATCH ()-[r]->() RETURN count(r) AS c")[0]["c"]
        relations = self._run("MATCH ()-[r]->() RETURN count(DISTINCT type(r)) AS c")[0]["c"]
        entities = self._run("MATCH (e:Entity) RETURN count(e) AS c")[0]["c"]
        return StoreStats(triples=int(triples), entities=int(entities), relations=int(relations))


