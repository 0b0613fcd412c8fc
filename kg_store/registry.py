"""Store URLs -> backends.

  oxigraph:PATH                embedded Oxigraph on disk (the default), `oxigraph:` in memory
  sparql+http://HOST:PORT/sparql[?update=PATH&graph=IRI]   any SPARQL 1.1 endpoint
                               (Virtuoso, Oxigraph server); credentials as user:pass@
  bolt://, neo4j://, bolt+s:// ...                          Neo4j, or FalkorDB's Bolt port
  memory:                      the in-memory reference backend
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_store.base import DEFAULT_SCHEMA_PREFIXES, GraphStore
from kg_store.errors import UnknownStoreURL

SCHEMES = ("oxigraph:", "sparql+http://", "sparql+https://", "bolt://", "bolt+s://", "bolt+ssc://",
           "neo4j://", "neo4j+s://", "neo4j+ssc://", "memory:")


def in_memory(url: str) -> bool:
    """Whether the store lives in the memory of the process that opens it (`oxigraph:`,
    `memory:`): no other process can load it for that one."""
    return url in ("oxigraph:", "memory:")


def open_store(
    url: str,
    *,
    schema_prefixes: Sequence[str] = DEFAULT_SCHEMA_PREFIXES,
    read_only: bool = False,
    neo4j_user: str | None = None,
    neo4j_password: str | None = None,
    neo4j_database: str | None = None,
) -> GraphStore:
    """Open the store a URL names. Raises UnknownStoreURL or StoreUnavailable."""
    if url.startswith("oxigraph:"):
        from kg_store.oxigraph import OxigraphStore

        return OxigraphStore(url, url[len("oxigraph:"):] or None, read_only=read_only, schema_prefixes=schema_prefixes)
    if url.startswith(("sparql+http://", "sparql+https://")):
        from kg_store.sparql import SparqlStore

        return SparqlStore(url, schema_prefixes=schema_prefixes)
    if url.startswith(("bolt", "neo4j")) and "://" in url:
        from kg_store.neo4j import open_bolt_store

        return open_bolt_store(
            url, user=neo4j_user, password=neo4j_password, database=neo4j_database, schema_prefixes=schema_prefixes
        )
    if url == "memory:":
        from kg_store.memory import MemoryStore

        return MemoryStore(url, schema_prefixes=schema_prefixes)
    raise UnknownStoreURL(f"unknown store URL {url!r}: expected one of {', '.join(SCHEMES)}")
