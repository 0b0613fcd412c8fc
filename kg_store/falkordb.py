"""FalkorDB over its Bolt port: the Neo4j backend with FalkorDB's dialect.

FalkorDB speaks enough Bolt and Cypher for `Neo4jStore`, with quirks measured in
tests/servers/FALKORDB_NOTES.md: parameters are spliced into the query text as '...'
literals (escaped here) inside a ~4 KiB buffer (writes are cut by rendered size, reads
batched small); no `IF NOT EXISTS` for indexes; no backtick inside a relationship type.
Names: FalkorDB's own full-text index (RediSearch) on `Entity.name_norm`, created with no
stop words, asked with every token as a prefix term.
`kg_store.registry.open_store` opens this class when FalkorDB answers on a Bolt URL.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from kg_store.errors import InvalidId
from kg_store.model import Direction
from kg_store.neo4j import Neo4jStore, quote_rel_type

#: Budget for one query's parameters, in bytes of their rendering as Cypher literals.
#: FalkorDB writes the parameters into a fixed stack buffer; about 4,090 rendered bytes
#: abort the whole server ("stack smashing detected"). Batch rows by size, not count.
MAX_PARAM_BYTES = 3500

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# RediSearch's query syntax: anything but a letter, digit or '_' is escaped.
_REDISEARCH_SPECIAL = re.compile(r"([^\w])")


def redisearch_query(tokens: list[str]) -> str:
    """Every token as a prefix term (`tom* han*`: all required); any character RediSearch
    could read as syntax (`-`, `|`, `@`, quotes, ...) is backslash-escaped."""
    return " ".join(_REDISEARCH_SPECIAL.sub(r"\\\1", t) + "*" for t in tokens)


def _escape(value: Any, where: str) -> Any:
    if isinstance(value, str):
        if "\0" in value:
            raise ValueError(f"{where}: NUL characters are truncated by FalkorDB")
        # FalkorDB re-parses parameters as '...' literals: escape what that parser reads.
        return value.replace("\\", "\\\\").replace("'", "\\'")
    if isinstance(value, (list, tuple)):
        return [_escape(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str) or not _IDENTIFIER.match(key):
                raise ValueError(f"{where}: map key {key!r} is not a plain identifier")
        return {key: _escape(item, f"{where}.{key}") for key, item in value.items()}
    return value


def param_bytes(params: Mapping[str, Any]) -> int:
    """Upper bound of the size FalkorDB renders ``params`` to (escape them first).

    JSON quotes map keys and FalkorDB does not, so this overestimates slightly."""
    return len(json.dumps(params, ensure_ascii=False, default=str).encode())


def falkordb_params(params: Mapping[str, Any], max_bytes: int | None = MAX_PARAM_BYTES) -> dict[str, Any]:
    """Return query parameters in the form FalkorDB's Bolt endpoint needs.

    FalkorDB splices Bolt parameters into the query as single-quoted literals without
    escaping: ``"it's"`` is a syntax error and ``"' RETURN 1 //"`` injects Cypher. So
    backslashes and single quotes in every (nested) string are escaped here; map keys
    must be plain identifiers; NUL is rejected (it truncates). Raises ValueError above
    ``max_bytes`` (see :data:`MAX_PARAM_BYTES`; None disables the check). Floats come
    back with 6 decimals (rendered with %f): inline them as literals if that matters.
    Against a real Neo4j server these parameters would be wrong: apply only here.
    """
    escaped: dict[str, Any] = _escape(dict(params), "params")
    if max_bytes is not None and (size := param_bytes(escaped)) > max_bytes:
        raise ValueError(
            f"query parameters render to ~{size} bytes; FalkorDB crashes near 4,090 "
            f"(budget {max_bytes}): send smaller batches"
        )
    return escaped


class FalkorDBStore(Neo4jStore):
    batch_size = 25  # ids per read: the parameter buffer is small

    def _rel_type(self, relation: str) -> str:
        # FalkorDB cannot read a doubled backtick inside a quoted type: refused, not risked.
        if "`" in relation:
            raise InvalidId(f"relation {relation!r}: FalkorDB cannot store a relationship type containing '`'")
        return quote_rel_type(relation)

    def _params(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return falkordb_params(params)
        except ValueError as exc:
            raise InvalidId(str(exc)) from exc

    def _chunks(self, rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
        """Write batches cut by rendered size."""
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

    def _ensure_indexes(self) -> None:
        # No IF NOT EXISTS, and every error arrives as "unknown" over Bolt: ask first.
        existing = {
            (row["label"], prop)
            for row in self._run("CALL db.indexes() YIELD label, properties RETURN label, properties")
            for prop in row["properties"]
        }
        for label, prop in (("Entity", "id"), ("Entity", "name"), ("Entity", "name_norm"), ("Literal", "key"),
                            ("Literal", "value")):
            if (label, prop) not in existing:
                self._run(f"CREATE INDEX FOR (x:{label}) ON (x.{prop})", write=True)
        text_indexed = any(
            "FULLTEXT" in row["types"].get("name_norm", ())
            for row in self._run("CALL db.indexes() YIELD label, types RETURN label, types")
            if row["label"] == "Entity"
        )
        if not text_indexed:
            self._run("CALL db.idx.fulltext.createNodeIndex({label: 'Entity', stopwords: []}, 'name_norm')", write=True)

    def _text_search(self, normalized: str, tokens: list[str], limit: int) -> list[dict[str, Any]]:
        return self._run(
            "CALL db.idx.fulltext.queryNodes('Entity', $q) YIELD node "
            "WITH node ORDER BY size(node.name_norm) LIMIT $limit "
            "RETURN node.id AS id, node.name AS name, node.name_norm AS norm "
            "UNION MATCH (e:Entity) WHERE e.name_norm STARTS WITH $norm "
            "RETURN e.id AS id, e.name AS name, e.name_norm AS norm LIMIT $limit",
            q=redisearch_query(tokens), norm=normalized, limit=limit,
        )

    def _entities_with(self, relation: str, direction: Direction, limit: int) -> list[str]:
        if "`" in relation:  # a type FalkorDB cannot hold: no fact has it
            return []
        return super()._entities_with(relation, direction, limit)
