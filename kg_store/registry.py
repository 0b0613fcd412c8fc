"""Store URLs -> backends.

  oxigraph:PATH                embedded Oxigraph on disk (the default), `oxigraph:` in memory
  sparql+http://HOST:PORT/sparql[?update=PATH&graph=IRI]   any SPARQL 1.1 endpoint
                               (Virtuoso, Oxigraph server); credentials as user:pass@
  bolt://, neo4j://, bolt+s:// ...                          Neo4j, or FalkorDB's Bolt port
  memory:                      the in-memory reference backend
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kg_store.base import DEFAULT_SCHEMA_PREFIXES, GraphStore
from kg_store.errors import UnknownStoreURL

SCHEMES = ("oxigraph:", "sparql+http://", "sparql+https://", "bolt://", "bolt+s://", "bolt+ssc://",
           "neo4j://", "neo4j+s://", "neo4j+ssc://", "memory:")


@dataclass(frozen=True)
class BoltOptions:
    """What a bolt:// URL may leave out: credentials and the database (the URL's own win
    where it has them only when these are not given)."""

    user: str | None = None
    password: str | None = None
    database: str | None = None


def in_memory(url: str) -> bool:
    """Whether the store lives in the memory of the process that opens it (`oxigraph:`,
    `memory:`): no other process can load it for that one."""
    return url in ("oxigraph:", "memory:")


def open_store(
    url: str,
    *,
    schema_prefixes: Sequence[str] = DEFAULT_SCHEMA_PREFIXES,
    read_only: bool = False,
    bolt: BoltOptions | None = None,
) -> GraphStore:
    """Open the store a URL names. `bolt`: credentials and database for a bolt:// URL
    that does not carry them. Raises UnknownStoreURL or StoreUnavailable."""
    if url.startswith("oxigraph:"):
        from kg_store.oxigraph import OxigraphStore

        return OxigraphStore(url, url[len("oxigraph:"):] or None, read_only=read_only, schema_prefixes=schema_prefixes)
    if url.startswith(("sparql+http://", "sparql+https://")):
        from kg_store.sparql import SparqlStore

        return SparqlStore(url, schema_prefixes=schema_prefixes)
    if url.startswith(("bolt", "neo4j")) and "://" in url:
        return _open_bolt_store(url, bolt or BoltOptions(), schema_prefixes)
    if url == "memory:":
        from kg_store.memory import MemoryStore

        return MemoryStore(url, schema_prefixes=schema_prefixes)
    raise UnknownStoreURL(f"unknown store URL {url!r}: expected one of {', '.join(SCHEMES)}")


def _open_bolt_store(url: str, options: BoltOptions, schema_prefixes: Sequence[str]) -> GraphStore:
    """Neo4j, or FalkorDB when that is what answers: it announces itself as "Neo4j/5.x" but
    lacks dbms.components()."""
    from urllib.parse import urlsplit

    from neo4j import GraphDatabase

    from kg_store.base import check_reachable
    from kg_store.bolt import DRIVER_SETTINGS, bolt_target, run_query
    from kg_store.errors import StoreQueryError
    from kg_store.neo4j import Neo4jStore

    uri, database, auth = bolt_target(url, options.user, options.password, options.database)
    target = urlsplit(uri)
    check_reachable(target.hostname or "localhost", target.port or 7687, f"the Bolt server at {uri}")
    driver = GraphDatabase.driver(uri, auth=auth, **DRIVER_SETTINGS)
    try:
        try:
            run_query(driver, database, uri, "CALL dbms.components() YIELD name RETURN name", {})
            store_class: type[Neo4jStore] = Neo4jStore
        except StoreQueryError:
            from kg_store.falkordb import FalkorDBStore

            store_class = FalkorDBStore
        return store_class(url, driver, database=database, schema_prefixes=schema_prefixes)
    except BaseException:
        driver.close()
        raise
