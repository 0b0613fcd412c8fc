"""Any SPARQL 1.1 endpoint over HTTP (Virtuoso, an Oxigraph server).

URL: `sparql+http://[user:password@]HOST:PORT/PATH[?update=PATH&gsp=PATH&graph=IRI]`
  update  where SPARQL UPDATE goes (default: the query URL). Virtuoso: `/sparql-auth`,
          with the dba credentials; anonymous update is denied there, as it should be.
  gsp     a SPARQL 1.1 Graph Store endpoint; when given, loads POST N-Triples there,
          ~10x faster than INSERT DATA (Virtuoso: `/sparql-graph-crud-auth`, Oxigraph
          server: `/store`).
  graph   the graph writes go to and reads are scoped to (Virtuoso needs one for writes;
          its queries without FROM see every graph, system graphs included).
Partial name search asks Virtuoso's free-text index (`bif:contains`) over the normalised
names. Writing names with credentials that may (Virtuoso's dba), the store adds the index
rule for that predicate once (DB.DBA.RDF_OBJ_FT_RULE_ADD, which Virtuoso also takes as a
SPARQL function call on the authenticated endpoint) and brings the index up to date after
each write (DB.DBA.VT_INC_INDEX_DB_DBA_RDF_OBJ). Whether the index answers is probed at the
first partial search (and again after a write): an endpoint where it does not (another
SPARQL server, a Virtuoso loaded without the rule) gets the same token rule as a scan of
every name, with a one-time warning.

Reads use only the query endpoint and no credentials, over one kept-open HTTP/1.1
connection per thread: a new connection per request cost ~0.8 ms of a ~2.5 ms one-hop
lookup on localhost, and an exploration makes thousands. Updates and Graph Store loads
(rare, large, digest auth as Virtuoso's `/sparql-auth` wants) go over httpx.
"""

from __future__ import annotations

import csv
import http.client
import io
import json
import socket
import threading
import warnings
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from operator import itemgetter
from urllib.parse import parse_qs, unquote, urlencode, urljoin, urlsplit, urlunsplit

import httpx

from kg_store import sparql_text
from kg_store.base import REACHED_TWICE_SAMPLE, DirectionFilter, GraphStore, check_reachable
from kg_store.errors import StoreAuthError, StoreQueryError, StoreUnavailable
from kg_store.ids import (
    FACTS_IN_BY_IRI,
    FACTS_IN_IRI,
    FACTS_OUT_BY_IRI,
    FACTS_OUT_IRI,
    NORM_NAME_IRI,
    REACHED_TWICE_SAMPLE_IRI,
    from_iri,
    is_internal_iri,
)
from kg_store.model import Direction, Edge, EntityMatch, LoadBatch, Neighborhood, StoreStats

JSON_RESULTS = "application/sparql-results+json"
# The W3C CSV results format: values only, no term types or language tags. Virtuoso writes it
# five times faster than JSON (22 vs 132 ms for 4,400 rows of three IRIs), and csv reads it
# in 2.5 ms: the walks' reads, whose columns are IRIs or plain values, ask for it.
CSV_RESULTS = "text/csv"


class _KeepAliveReader:
    """POSTs SPARQL queries over a kept-open connection (one per thread); reconnects once
    when the server closed it in between.

    Hand-written on purpose: measured against httpx (keep-alive client) on the same Virtuoso,
    interleaved rounds, one-entity neighbours (two queries): p50 2.05 ms here, 3.10 ms with
    httpx. Reads are the hot path of an exploration; updates use httpx.

    Each reply is read with the socket in quick-ACK mode (Linux): Virtuoso writes a reply in
    pieces with Nagle's algorithm on, so its last piece waits for the ACK of the one before,
    which a kept-open connection delays by 40 ms: 15 of 36 replies of a walk's queries on 5M
    facts took 45-48 ms instead of 5, none with quick ACKs (results/2026-11-29/bench/probes;
    a fresh connection starts in quick-ACK mode, which is why curl never shows it)."""

    def __init__(self, endpoint: str, timeout: float) -> None:
        parts = urlsplit(endpoint)
        self.https = parts.scheme == "https"
        self.host, self.port = parts.hostname or "localhost", parts.port
        self.path, self.timeout = parts.path or "/", timeout
        self._local = threading.local()
        self._all: list[http.client.HTTPConnection] = []  # every thread's, for close()

    def _connection(self, fresh: bool) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None or fresh:
            if conn is not None:
                conn.close()
                self._all.remove(conn)
            cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
            conn = self._local.conn = cls(self.host, self.port, timeout=self.timeout)
            self._all.append(conn)
        return conn

    def post(self, query: str, accept: str = JSON_RESULTS) -> tuple[int, bytes]:
        body = urlencode({"query": query}).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": accept}
        for attempt in (0, 1):
            conn = self._connection(fresh=attempt == 1)
            try:
                conn.request("POST", self.path, body, headers)
                _ack_at_once(conn.sock)
                response = conn.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, http.client.CannotSendRequest, BrokenPipeError,
                    ConnectionResetError):
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        for conn in self._all:
            conn.close()
        self._all.clear()


def _ack_at_once(sock: socket.socket | None) -> None:
    """Send this socket's requests' pieces without waiting (no Nagle) and ACK what comes
    back at once, where the platform can (the kernel drops quick-ACK mode by itself, so it
    is set before each reply)."""
    if sock is None:
        return
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if hasattr(socket, "TCP_QUICKACK"):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)


# Entities with more facts than this one way carry their count once the store is settled
# (`SparqlStore.after_load`): enough for any hub cap from here up (the agent's is 100).
COUNTED_OVER = 32
# ... and with more than this, their counts a relation: what the hub fill of an entity
# capped at the agent's cap asks (with the counts above, 3.5% more triples on the 1M
# synthetic KG: results/2026-11-29/bench/probes/counts-share.jsonl).
RELATIONS_COUNTED_OVER = 100


class SparqlStore(GraphStore):
    batch_size = 200  # keeps the UNION query text well under endpoints' size limits
    write_batch_size = 20_000
    # Triples per INSERT DATA request: Virtuoso's SPARQL parser runs out of memory near 5,000.
    update_chunk_triples = 2_000

    def __init__(self, url: str, *, timeout: float = 60.0, **kwargs) -> None:
        super().__init__(url, **kwargs)
        parts = urlsplit(url.removeprefix("sparql+"))
        params = parse_qs(parts.query)
        netloc = parts.hostname or ""
        if parts.port:
            netloc += f":{parts.port}"
        self.endpoint = urlunsplit((parts.scheme, netloc, parts.path or "/sparql", "", ""))
        update = params.get("update", [self.endpoint])[0]
        self.update_endpoint = urljoin(self.endpoint, update)
        self.graph = params.get("graph", [None])[0]
        gsp = params.get("gsp", [None])[0]
        self.gsp_endpoint = urljoin(self.endpoint, gsp) if gsp else None
        self.user = unquote(parts.username) if parts.username else None
        self.password = unquote(parts.password) if parts.password else None
        self.timeout = timeout
        check_reachable(parts.hostname or "localhost", parts.port or (443 if parts.scheme == "https" else 80),
                        f"SPARQL endpoint {self.endpoint}")
        self._reader = _KeepAliveReader(self.endpoint, timeout)
        self._http = httpx.Client(timeout=timeout)
        self._auth = httpx.DigestAuth(self.user, self.password or "") if self.user else None
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kgqa-sparql")
        # Free-text index of the names: None until probed (again after each write).
        self._text_index: bool | None = None
        self._text_rule: bool | None = None  # whether this store could add the index rule (None: not tried)
        self._warned_scan = False
        # Over how many facts the store's entities carry their counts (`after_load`); None
        # until asked, 0 where they carry none.
        self._counted_over: int | None = None
        self._counts_invalidated = False  # this object has dropped the settled marks before writing
        # The relations a settled store notes as reaching an entity twice, with the sample
        # judged on: None until asked; (0, nothing) where it notes none.
        self._noted_twice: tuple[int, frozenset[tuple[str, bool]]] | None = None

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self._reader.close()
        self._http.close()

    # ---- transport ---------------------------------------------------------------------
    def _post(self, url: str, what: str, **request) -> httpx.Response:
        """POST with the URL's credentials (digest); transport failures and refused credentials
        as store errors."""
        try:
            response = self._http.post(url, auth=self._auth or httpx.USE_CLIENT_DEFAULT, **request)
        except httpx.TransportError as exc:
            raise StoreUnavailable(f"cannot reach SPARQL endpoint {url}: {exc or type(exc).__name__}") from exc
        if response.status_code in (401, 403):
            why = "credentials refused: check user and password" if self.user else "the endpoint wants credentials"
            raise StoreAuthError(f"{self.display_url}: HTTP {response.status_code} for {what} ({why})")
        return response

    def _credentials_hint(self) -> str:
        if self.user:
            return ""
        return ("; the store URL has no user and password, and Virtuoso takes updates only on an "
                "authenticated endpoint: sparql+http://USER:PASSWORD@HOST:8890/sparql?update=/sparql-auth")

    def _read(self, query: str, accept: str) -> bytes:
        try:
            status, body = self._reader.post(sparql_text.from_graph(query, self.graph), accept)
        except (OSError, http.client.HTTPException) as exc:
            raise StoreUnavailable(f"cannot reach SPARQL endpoint {self.endpoint}: {exc}") from exc
        if status in (401, 403):
            raise StoreAuthError(f"{self.display_url}: HTTP {status} for a read (the endpoint wants credentials)")
        if status != 200:
            said = _endpoint_said(body.decode("utf-8", "replace"))
            raise StoreQueryError(f"{self.display_url}: HTTP {status} for a read: {said}")
        return body

    def _select(self, query: str) -> list[dict[str, dict]]:
        body = self._read(query, JSON_RESULTS)
        try:
            return json.loads(body)["results"]["bindings"]
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreQueryError(f"{self.display_url}: the endpoint's reply to a SELECT is not SPARQL JSON") from exc

    def _select_rows(self, query: str) -> tuple[list[str], list[list[str]]]:
        """A SELECT's (variables, rows of values), read from CSV results: for queries whose
        columns need no term type or language tag (IRIs, counts). An unbound variable (or an
        empty literal) reads as ""."""
        body = self._read(query, CSV_RESULTS)
        try:
            header, *rows = csv.reader(io.StringIO(body.decode("utf-8"), newline=""))
        except (UnicodeDecodeError, csv.Error, ValueError) as exc:
            raise StoreQueryError(f"{self.display_url}: the endpoint's reply to a SELECT is not SPARQL CSV") from exc
        if any(len(row) != len(header) for row in rows):
            raise StoreQueryError(f"{self.display_url}: the endpoint's CSV reply has rows of another width than its header")
        return header, rows

    def _select_values(self, query: str) -> list[dict[str, str]]:
        """`_select_rows`' rows as {variable: value}."""
        header, rows = self._select_rows(query)
        return [dict(zip(header, row, strict=True)) for row in rows]

    def _update(self, update: str) -> None:
        response = self._post(self.update_endpoint, "an update", data={"update": update})
        if not response.is_success:
            raise StoreQueryError(f"{self.display_url}: the endpoint rejected an update (HTTP {response.status_code}): "
                                  f"{_endpoint_said(response.text)}{self._credentials_hint()}")

    def _admin_call(self, call: str) -> bool:
        """Run a Virtuoso SQL procedure as a SPARQL function on the update endpoint (its
        credentials); False where that is refused or unknown (another server, no rights)."""
        try:
            response = self._post(self.update_endpoint, "an index call", data={"query": f"SELECT ({call}) AS ?r WHERE {{}}"},
                                  headers={"Accept": "application/sparql-results+json"})
        except (StoreAuthError, StoreUnavailable):
            return False
        return response.is_success

    def _update_text_index(self) -> None:
        """After names were written: the free-text rule for the normalised names (once),
        then the index brought up to date (Virtuoso indexes new literals in batches)."""
        if self._text_rule is None:  # '' is Virtuoso's "any graph"
            self._text_rule = self._admin_call(
                f"sql:RDF_OBJ_FT_RULE_ADD('', {sparql_text.literal(NORM_NAME_IRI)}, 'kgqa_names')")
        if self._text_rule:
            self._admin_call("sql:VT_INC_INDEX_DB_DBA_RDF_OBJ()")
        self._text_index = None

    def clear(self) -> None:
        # DROP rather than CLEAR: after CLEAR GRAPH, Virtuoso's queries FROM that graph run
        # ~20x slower once it is filled again (measured: 3 ms -> 60 ms per lookup).
        self._update(f"DROP SILENT GRAPH {sparql_text.iri_ref(self.graph)}" if self.graph else "CLEAR DEFAULT")
        self._text_index = self._values = self._counted_over = self._noted_twice = None

    # ---- writes ------------------------------------------------------------------------
    def write(self, batch: LoadBatch) -> None:
        self.prepare_write(batch)()

    def prepare_write(self, batch: LoadBatch) -> Callable[[], None]:
        # The text is built now, on the loading thread; the returned call only sends it.
        text = sparql_text.ntriples(batch) if len(batch) else ""

        def send() -> None:
            if not text:
                return
            self._drop_settled_marks()
            if self.gsp_endpoint:
                self._post_ntriples(text.encode())
            else:
                lines = text.splitlines()
                for start in range(0, len(lines), self.update_chunk_triples):
                    data = "\n".join(lines[start : start + self.update_chunk_triples])
                    self._update(f"INSERT DATA {{ {sparql_text.scoped(self.graph, data)} }}")
            if batch.names:
                self._update_text_index()
            if batch.attributes:
                self._values = None

        return send

    def _post_ntriples(self, data: bytes) -> None:
        """SPARQL 1.1 Graph Store HTTP Protocol: POST merges the triples into the graph."""
        assert self.gsp_endpoint is not None
        target = self.gsp_endpoint + ("" if self.graph else "?default")  # the spec's bare `default`
        response = self._post(target, "a graph store load", content=data,
                              params={"graph": self.graph} if self.graph else None,
                              headers={"Content-Type": "application/n-triples"})
        if not response.is_success:
            raise StoreQueryError(f"{self.display_url}: HTTP {response.status_code} from the graph store endpoint: "
                                  f"{_endpoint_said(response.text)}")

    def after_load(self) -> None:
        """Count the facts of the big entities (`sparql_text.fact_counts_updates`): a capped
        read then looks up which of its entities are hubs instead of counting every edge of
        them, a count that grows with the KG (its hubs). Then judge once which relations
        reach an entity twice and note them (`sparql_text.reached_twice_updates`): a walk
        asks that of every relation it steps along, two queries each, the first question of
        every process (2.2 s for the first topic's walk on 1M synthetic facts). Seconds on
        millions of facts, on the server; a reader that finds neither asks for itself, as before."""
        for update in sparql_text.fact_counts_updates(self.graph, COUNTED_OVER, RELATIONS_COUNTED_OVER):
            self._update(update)
        self._counted_over = None
        reached = [(relation, forward) for relation in sorted(self._relation_counts()) for forward in (True, False)
                   if self._sampled_reaches_twice(relation, forward, REACHED_TWICE_SAMPLE)]
        for update in sparql_text.reached_twice_updates(self.graph, reached, REACHED_TWICE_SAMPLE,
                                                        self.update_chunk_triples):
            self._update(update)
        self._noted_twice = None
        self._counts_invalidated = False

    def forget_entities(self) -> None:
        self._counted_over = None  # another process may have settled or written the store

    def _drop_settled_marks(self) -> None:
        """Before this object's first write: readers stop trusting what settling wrote, which
        the write makes stale, until the store is settled again."""
        if not self._counts_invalidated:
            self._update(sparql_text.drop_settled_marks(self.graph))
            self._counts_invalidated = True
            self._counted_over = 0
            self._noted_twice = (0, frozenset())

    def _fact_counts_over(self) -> int:
        """Over how many facts (one way) every entity's count is stored; 0 for none."""
        if self._counted_over is None:
            rows = self._select_values(sparql_text.counted_over_query())
            self._counted_over = int(rows[0]["t"]) if rows and rows[0]["t"].isdigit() else 0
        return self._counted_over

    # ---- reads -------------------------------------------------------------------------
    def _neighbors(
        self,
        ids: Sequence[str],
        direction: DirectionFilter,
        relations: Collection[str] | None,
        limit_per_entity: int | None,
    ) -> Neighborhood:
        return self._edges_from(self._neighbor_queries(ids, direction, relations, limit_per_entity), ids,
                                limit_per_entity)

    def _edges_from(self, queries: list[str], ids: Sequence[str], limit_per_entity: int | None = None) -> Neighborhood:
        # Out- and in-edges in parallel, each on its thread's kept-open connection. Rows are
        # read as lists (a walk reads tens of thousands), ids converted once a distinct IRI.
        hood = Neighborhood(edges={i: [] for i in ids})
        seen: set[tuple[str, str, str, str]] = set()
        counts: dict[tuple[str, str], int] = {}
        local: dict[str, str] = {}
        for header, rows in self._pool.map(self._select_rows, queries):
            columns = itemgetter(*(header.index(v) for v in ("s", "r", "x", "n", "dir")))
            for row in rows:
                s_iri, r_iri, x_iri, name, dir_name = columns(row)
                key = (s_iri, r_iri, x_iri, dir_name)
                if key in seen:  # several names for one neighbour: keep the first row
                    continue
                seen.add(key)
                source = local.get(s_iri) or local.setdefault(s_iri, from_iri(s_iri))
                relation = local.get(r_iri) or local.setdefault(r_iri, from_iri(r_iri))
                if relation.startswith("meta:"):
                    continue
                n = counts.get((source, dir_name), 0)
                if limit_per_entity is not None and n == limit_per_entity:
                    hood.truncated.add(source)  # the cap+1-th row: there was more
                    continue
                counts[(source, dir_name)] = n + 1
                edge = Edge(source, relation, from_iri(x_iri), name or None, dir_name)  # type: ignore[arg-type]
                hood.edges.setdefault(source, []).append(edge)  # CSV: an unnamed neighbour's (a CVT's) name is ""
        return hood

    def _neighbor_queries(self, ids: Sequence[str], direction: DirectionFilter, relations: Collection[str] | None,
                          limit_per_entity: int | None) -> list[str]:
        """The reads of `_neighbors`. A capped read gives each entity its own sub-select with
        a LIMIT, and Virtuoso plans a UNION of 200 of them in about 0.7 s however few rows
        they return; so the ids' edges are counted first (a count per id and direction) and
        only those over the cap are read that way, the rest in one plain query. A settled
        store has the counts of its big entities stored (`after_load`): they are looked up
        instead, since counting a hub's edges reads all of them (8, 10 and 20 ms a query at
        1, 5 and 20M facts: results/2026-11-28/bench/pog-scale-virtuoso-kinds.jsonl)."""
        if not limit_per_entity or len(ids) == 1:
            return sparql_text.neighbors_queries(ids, direction, relations, limit_per_entity)
        directions = [d for d, _ in sparql_text.edge_patterns(direction)]
        counted_over = self._fact_counts_over()
        if 0 < counted_over <= limit_per_entity:  # the stored counts tell every entity over the cap
            stored = self._select_values(sparql_text.stored_counts_query(ids, FACTS_OUT_IRI, FACTS_IN_IRI))
            way = {FACTS_OUT_IRI: "out", FACTS_IN_IRI: "in"}
            counts = [[row for row in stored if way.get(row["m"]) == d] for d in directions]
        else:
            counts = list(self._pool.map(self._select_values,
                                         [sparql_text.edge_counts_query(ids, d, relations) for d in directions]))
        queries = []
        for dir_name, rows in zip(directions, counts, strict=True):
            over = {from_iri(row["s"]) for row in rows if int(row["c"]) > limit_per_entity}
            whole, capped = [i for i in ids if i not in over], [i for i in ids if i in over]
            if whole:
                queries += sparql_text.neighbors_queries(whole, dir_name, relations, None)
            if capped:
                queries += sparql_text.neighbors_queries(capped, dir_name, relations, limit_per_entity)
        return queries

    def names(self, ids: Sequence[str]) -> dict[str, str | None]:
        found: dict[str, str | None] = {i: None for i in ids}
        for start in range(0, len(ids), self.batch_size):
            for row in self._select(sparql_text.names_query(ids[start : start + self.batch_size])):
                entity = from_iri(row["s"]["value"])
                if found.get(entity) is None or row["n"].get("xml:lang") == "en":
                    found[entity] = row["n"]["value"]
        return found

    def attributes(self, ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        found: dict[str, list[tuple[str, str]]] = {i: [] for i in ids}
        for row in self._select(sparql_text.attributes_query(ids)):
            found[from_iri(row["s"]["value"])].append((from_iri(row["r"]["value"]), row["v"]["value"]))
        return found

    def _holders(self, value: str, limit: int | None) -> list[tuple[str, str]]:
        rows = self._select_values(sparql_text.holders_query(value, None if limit is None else limit + 1))
        return [(from_iri(row["r"]), from_iri(row["s"])) for row in rows]

    def _probe_values(self) -> bool:
        return bool(self._select(sparql_text.any_attribute_query()))

    def _search_exact(self, text: str, normalized: str, limit: int) -> list[EntityMatch]:
        return _matches(self._select(sparql_text.search_exact_query(text, normalized, limit)))

    def _partial_candidates(self, normalized: str, tokens: list[str], limit: int) -> list[tuple[str, str, str]]:
        if self._has_text_index():
            query = sparql_text.search_text_query(normalized, tokens, limit)
        else:
            query = sparql_text.search_scan_query(normalized, tokens, limit)
        return [(from_iri(row["e"]["value"]), row["n"]["value"], row["norm"]["value"]) for row in self._select(query)]

    def _has_text_index(self) -> bool:
        """Whether `bif:contains` finds a stored normalised name by one of its words."""
        if self._text_index is not None:
            return self._text_index
        probed = None
        for row in self._select(sparql_text.a_normalized_name_query()):
            words = sorted((w for w in row["norm"]["value"].split() if w.isalnum()), key=len, reverse=True)
            if words:
                try:
                    probed = bool(self._select(sparql_text.text_index_probe_query(row["e"]["value"], words[0])))
                except StoreQueryError:  # not Virtuoso: bif:contains is no function there
                    probed = False
                break
        if probed is None:  # no names yet: nothing to scan, ask again next time
            return False
        if not probed and not self._warned_scan:
            self._warned_scan = True
            warnings.warn(
                f"{self.display_url}: no free-text index answers for the names, so partial name search scans "
                "every name (slow on large stores). On Virtuoso, as dba: "
                f"DB.DBA.RDF_OBJ_FT_RULE_ADD(null, '{NORM_NAME_IRI}', 'kgqa_names'); "
                "DB.DBA.VT_INC_INDEX_DB_DBA_RDF_OBJ(); or load names through kgqa with the dba credentials",
                RuntimeWarning, stacklevel=4)
        self._text_index = probed
        return probed

    def _relation_degrees(self, ids: Sequence[str]) -> Iterable[tuple[str, str, int]]:
        for row in self._select_values(sparql_text.degrees_query(ids)):
            predicate = row["p"]
            if not is_internal_iri(predicate):
                yield from_iri(row["s"]), from_iri(predicate), int(row["c"])

    def _relation_degrees_by_way(self, ids: Sequence[str], cap: int) -> Iterable[tuple[str, str, DirectionFilter, int]]:
        """Read from the counts a settled store keeps of its biggest entities (a GROUP BY
        reads every edge of a hub, longer the bigger the KG); counted for the rest."""
        counted: set[str] = set()
        if self._fact_counts_over():
            way = {FACTS_OUT_BY_IRI: "out", FACTS_IN_BY_IRI: "in"}
            for row in self._select_values(sparql_text.stored_counts_query(ids, FACTS_OUT_BY_IRI, FACTS_IN_BY_IRI)):
                entity = from_iri(row["s"])
                counted.add(entity)
                count, _, predicate = row["c"].partition(" ")
                if row["m"] in way and count.isdigit() and not is_internal_iri(predicate):
                    yield entity, from_iri(predicate), way[row["m"]], int(count)  # type: ignore[misc]
        uncounted = [i for i in ids if i not in counted]
        if uncounted:
            for row in self._select_values(sparql_text.directed_degrees_query(uncounted)):
                predicate = row["p"]
                if not is_internal_iri(predicate):
                    yield from_iri(row["s"]), from_iri(predicate), row["d"], int(row["c"])  # type: ignore[misc]

    def _fill_edges(self, whole: dict[DirectionFilter, list[tuple[str, str]]],
                    many: dict[tuple[str, DirectionFilter], list[str]], cap: int) -> Iterable[tuple[str, list[Edge]]]:
        """Every read of the fill at once, on the two reading threads: the whole pairs a
        query of `batch_size` pairs a direction, the capped relations a sub-select with LIMIT
        cap+1 per (hub, relation), `batch_size` of them a query (the counts are known, so
        nothing is counted first)."""
        queries = [query for way, pairs in whole.items() for start in range(0, len(pairs), self.batch_size)
                   for query in sparql_text.pair_edges_queries(pairs[start : start + self.batch_size], way)]
        capped = {way: [(hub, relation) for (relation, w), hubs in many.items() if w == way for hub in hubs]
                  for way in ("out", "in")}
        queries += [query for way, wanted in capped.items() for start in range(0, len(wanted), self.batch_size)
                    for query in sparql_text.capped_relation_edges_queries(wanted[start : start + self.batch_size],
                                                                           way, cap + 1)]
        kept: dict[tuple[str, str, str], int] = {}
        for entity, edges in self._edges_from(queries, []).edges.items():
            mine = []
            for edge in edges:  # a capped relation's cap+1-th edge only said there was more
                key = (entity, edge.relation, edge.direction)
                if kept.get(key, 0) < cap:
                    kept[key] = kept.get(key, 0) + 1
                    mine.append(edge)
            yield entity, mine

    def _relation_counts(self) -> dict[str, int]:
        rows = self._select(sparql_text.relation_counts_query())
        return {from_iri(r["p"]["value"]): int(r["c"]["value"]) for r in rows if not is_internal_iri(r["p"]["value"])}

    def _relation_names(self) -> Iterable[str]:
        rows = self._select(sparql_text.relation_names_query())
        return [from_iri(r["p"]["value"]) for r in rows if not is_internal_iri(r["p"]["value"])]

    def _reaches_twice(self, relation: str, forward: bool, sample: int) -> bool:
        """Read from what a settled store notes, when judged on the same sample (one query
        for every relation); asked otherwise."""
        noted_sample, reached = self._reached_twice_noted()
        if noted_sample == sample:
            return (relation, forward) in reached
        return self._sampled_reaches_twice(relation, forward, sample)

    def _reached_twice_noted(self) -> tuple[int, frozenset[tuple[str, bool]]]:
        if self._noted_twice is None:
            sample, reached = 0, set()
            for row in self._select_values(sparql_text.reached_twice_query()):
                if row["m"] == REACHED_TWICE_SAMPLE_IRI:
                    sample = int(row["t"]) if row["t"].isdigit() else 0
                else:
                    way, _, relation = row["t"].partition(" ")
                    reached.add((relation, way == "forward"))
            self._noted_twice = (sample, frozenset(reached))
        return self._noted_twice

    def _sampled_reaches_twice(self, relation: str, forward: bool, sample: int) -> bool:
        """The sample listed, then one query that stops at the first entity reached twice
        (not a neighbour read of the sample per entity, its edges counted first)."""
        reached = self._entities_with(relation, "in" if forward else "out", sample)
        return bool(reached) and bool(self._select_rows(sparql_text.reaches_twice_query(relation, forward, reached))[1])

    def _entities_with(self, relation: str, direction: Direction, limit: int) -> list[str]:
        rows = self._select(sparql_text.entities_with_query(relation, direction, limit))
        return [from_iri(next(iter(r.values()))["value"]) for r in rows]

    def stats(self) -> StoreStats:
        counts = {k: int(self._select(q)[0]["c"]["value"]) for k, q in sparql_text.stats_queries().items()}
        return StoreStats(**counts)


def _matches(rows: list[dict]) -> list[EntityMatch]:
    return [sparql_text.entity_match(r["e"]["value"], r["n"]["value"], r["kind"]["value"]) for r in rows]


def _endpoint_said(text: str, limit: int = 300) -> str:
    """What the endpoint answered, without the query text Virtuoso echoes after it
    (thousands of triples of INSERT DATA in a load)."""
    said = text.split("SPARQL query:")[0]
    said = " ".join(said.split())
    return said if len(said) <= limit else said[:limit] + " …"
