"""Graph stores behind one protocol: embedded Oxigraph, SPARQL endpoints, Neo4j, memory."""

from kg_store.base import DEFAULT_SCHEMA_PREFIXES, GraphStore
from kg_store.errors import (
    ConfigError,
    InputError,
    InvalidId,
    KGQAError,
    StoreAuthError,
    StoreError,
    StoreQueryError,
    StoreUnavailable,
    UnknownStoreURL,
)
from kg_store.model import UNNAMED, Attribute, Edge, EntityMatch, LoadBatch, Neighborhood, StoreStats, Subgraph, Triple
from kg_store.registry import open_store

__all__ = [
    "DEFAULT_SCHEMA_PREFIXES",
    "UNNAMED",
    "Attribute",
    "ConfigError",
    "Edge",
    "EntityMatch",
    "GraphStore",
    "InputError",
    "InvalidId",
    "KGQAError",
    "LoadBatch",
    "Neighborhood",
    "StoreAuthError",
    "StoreError",
    "StoreQueryError",
    "StoreStats",
    "StoreUnavailable",
    "Subgraph",
    "Triple",
    "UnknownStoreURL",
    "open_store",
]
