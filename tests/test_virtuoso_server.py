"""Start a private Virtuoso, write through the authenticated update endpoint, read
through the anonymous one, bulk load a .nt.gz, and check nothing is left running."""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from SPARQLWrapper import DIGEST, JSON, POST, SPARQLWrapper

from tests.servers.virtuoso import VirtuosoServer

pytestmark = pytest.mark.server

if not VirtuosoServer.available():
    if os.environ.get("KGQA_REQUIRE_SERVERS") == "1":
        pytest.fail("KGQA_REQUIRE_SERVERS=1 but virtuoso-t / isql-vt are not on PATH", pytrace=False)
    pytest.skip(
        "Virtuoso not installed (virtuoso-t / isql-vt not on PATH; apt-get install virtuoso-opensource-7-bin)",
        allow_module_level=True,
    )

GRAPH = "urn:test:g"


def sparql_literal(value: str) -> str:
    """SPARQL string literal with the escapes the grammar requires (ECHAR)."""
    escaped = (
        value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    )
    return f'"{escaped}"'


@pytest.fixture(scope="module")
def virtuoso(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtuosoServer]:
    with VirtuosoServer(tmp_path_factory.mktemp("virtuoso"), password="test-pw") as server:
        yield server


def update(server: VirtuosoServer, sparql: str) -> None:
    client = SPARQLWrapper(server.update_url)
    client.setHTTPAuth(DIGEST)
    client.setCredentials(server.user, server.password)
    client.setMethod(POST)
    client.setQuery(sparql)
    client.query().response.read()


def select(server: VirtuosoServer, sparql: str) -> list[dict[str, dict[str, str]]]:
    client = SPARQLWrapper(server.sparql_url)
    client.setReturnFormat(JSON)
    client.setQuery(sparql)
    result = client.query().convert()
    assert isinstance(result, dict)
    return list(result["results"]["bindings"])


def test_insert_query_delete(virtuoso: VirtuosoServer) -> None:
    tricky = 'He said "hi"\nit\'s ünïcödé ☃ 😀 \\ {}'
    # The DEFINE is not needed with our ini, but the SPARQL backend sends it (it keeps
    # INSERT DATA fast on servers with MaxQueryCostEstimationTime), so check it parses.
    update(
        virtuoso,
        f"DEFINE sql:big-data-const 1\nINSERT DATA {{ GRAPH <{GRAPH}> {{"
        f' <urn:a> <urn:name> "Alice" . <urn:a> <urn:knows> <urn:b> .'
        f" <urn:b> <urn:name> {sparql_literal(tricky)} . }} }}",
    )
    # No FROM / GRAPH: Virtuoso queries the union of all graphs.
    rows = select(virtuoso, "SELECT ?n WHERE { <urn:a> <urn:knows> ?x . ?x <urn:name> ?n }")
    assert [r["n"]["value"] for r in rows] == [tricky]
    rows = select(virtuoso, f"SELECT ?s WHERE {{ GRAPH <{GRAPH}> {{ ?s <urn:name> {sparql_literal(tricky)} }} }}")
    assert [r["s"]["value"] for r in rows] == ["urn:b"]

    update(virtuoso, f"DELETE DATA {{ GRAPH <{GRAPH}> {{ <urn:a> <urn:knows> <urn:b> }} }}")
    assert select(virtuoso, "SELECT ?x WHERE { <urn:a> <urn:knows> ?x }") == []


def test_anonymous_update_is_refused(virtuoso: VirtuosoServer) -> None:
    client = SPARQLWrapper(virtuoso.sparql_url)
    client.setMethod(POST)
    client.setQuery(f"INSERT DATA {{ GRAPH <{GRAPH}> {{ <urn:x> <urn:y> <urn:z> }} }}")
    with pytest.raises(Exception, match="SECURITY|permission"):
        client.query()


def test_isql_runs_sql_and_reports_errors(virtuoso: VirtuosoServer) -> None:
    assert virtuoso.isql("SELECT 'a$b';").strip() == "a$b"
    with pytest.raises(RuntimeError, match="SQ200"):
        virtuoso.isql("SELECT x FROM no_such_table;")


def test_bulk_load_nt_gz(virtuoso: VirtuosoServer) -> None:
    # Under workdir: always in Virtuoso's DirsAllowed, wherever pytest puts tmp_path.
    data = virtuoso.workdir / "bulk-data"
    data.mkdir()
    with gzip.open(data / "tiny.nt.gz", "wt", encoding="utf-8") as fh:
        fh.write('<urn:bulk1> <urn:label> "one" .\n<urn:bulk2> <urn:label> "zwei \\"2\\""@de .\n')
    virtuoso.bulk_load_dir(data, graph="urn:test:bulk")
    rows = select(virtuoso, "SELECT ?s ?o WHERE { GRAPH <urn:test:bulk> { ?s <urn:label> ?o } } ORDER BY ?s")
    assert [(r["s"]["value"], r["o"]["value"]) for r in rows] == [("urn:bulk1", "one"), ("urn:bulk2", 'zwei "2"')]
    assert rows[1]["o"].get("xml:lang") == "de"


def test_stop_leaves_no_process(tmp_path: Path) -> None:
    server = VirtuosoServer(tmp_path / "vt").start()
    pid = server.pid
    assert pid is not None and server.is_running()
    server.stop()
    server.stop()  # idempotent
    assert not server.is_running()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
