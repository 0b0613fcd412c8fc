"""The embedded store's adjacency index: every entity's edges in SQLite, in the store's order.

A walk reads each entity of its frontier both ways. From Oxigraph's quads that is a seek
and, for every quad, a lookup of each of its terms' strings (the quads hold hashes): about
5 µs a quad at a million facts, 10 at twenty million. Here an entity's edges lie together
in one B-tree range keyed by id, strings and all.

One row per edge and way: (node, way, seq, relation, other, name, named), `way` OUT or IN
for an edge to an entity, VALUE for a literal attribute (names aside) as the value it holds.
The other entity's shown name is in the row, copied from the name index's table of shown
names when the index is built (`named`: NAMED, UNNAMED, or ASK_STORE for an entity with
several names, which the store chooses between by language): a walk reads thousands of
neighbours a question, and a name looked up apiece would be a seek into a second B-tree.

`seq` is the fact's position in a scan of the store's quads, which Oxigraph keeps ordered
by subject, relation and object hashes: ordered by seq, an entity's out-edges, in-edges and
the edges of one relation come exactly as Oxigraph's own reads return them. So a capped
read keeps the same edges and a walk meets them in the same order, whichever the store
reads (tests/test_store_contract.py holds the two to that).

The index is built whole from a scan of the store (`build`, by the store's `after_load`)
and dropped by any write: it is either exactly the store's or absent, and an absent one
means the store reads its quads.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from contextlib import closing
from pathlib import Path

from kg_store.names import MMAP_BYTES

#: The index's file name, inside an on-disk store's folder.
ADJACENCY_FILE = "kgqa-adjacency.sqlite"
OUT, IN, VALUE = 0, 1, 2
UNNAMED, NAMED, ASK_STORE = 0, 1, 2
_VERSION = "1"
_ROWS_A_STATEMENT = 100_000


class AdjacencyIndex:
    """A built index, open for reading. Safe to share between threads."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._lock = threading.Lock()
        self._relation_ids = dict(db.execute("SELECT relation, rid FROM relations"))
        self._relations = {rid: relation for relation, rid in self._relation_ids.items()}
        self.holds_values = db.execute("SELECT value FROM meta WHERE key = 'values'").fetchone() == ("1",)

    @classmethod
    def open(cls, path: Path) -> AdjacencyIndex | None:
        """The index at `path`, or None where there is none, or not one of this version."""
        if not path.is_file():
            return None
        try:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False,
                                 isolation_level=None)
            # Pages read through a memory map, not a system call each: most of a seek's cost.
            db.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            if db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() != (_VERSION,):
                db.close()
                return None
            return cls(db)
        except sqlite3.DatabaseError:
            return None

    @staticmethod
    def build(path: Path, rows: Iterable[tuple[str, int, str, str]], names: Path | None) -> None:
        """Write the index of `rows` (node, way, relation, other), in the store's scan order,
        with the shown names of the name index at `names` (None: every name is the store's
        to say), beside `path`, then move it there in one step: no reader sees half an index."""
        tmp = path.with_name(f"{path.name}.build-{os.getpid()}-{threading.get_ident()}")
        tmp.unlink(missing_ok=True)
        try:
            with closing(sqlite3.connect(tmp.resolve().as_uri(), uri=True, isolation_level=None)) as db:
                _write(db, rows, names)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)

    @staticmethod
    def drop(path: Path) -> None:
        """Remove the index at `path` (before a write changes the store)."""
        path.unlink(missing_ok=True)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- reads -----------------------------------------------------------------------
    def edges(self, node: str, way: int, relations: Sequence[str] | None,
              limit: int | None) -> list[tuple[str, str, str | None, int]]:
        """(relation, other, its name, named) of `node`'s rows of one way in the store's
        order, at most `limit`; restricted to `relations`, relation after relation in their
        order, as the store reads them."""
        cap = -1 if limit is None else limit
        with self._lock:
            if relations is None:
                found = self._db.execute("SELECT rid, other, name, named FROM edges WHERE node = ? AND way = ? ORDER BY seq LIMIT ?",
                                         (node, way, cap)).fetchall()
            else:
                found = []
                for relation in relations:
                    rid = self._relation_ids.get(relation)
                    if rid is None:
                        continue
                    found += self._db.execute(
                        # Through the relation's range, in seq order (the index ends with the key):
                        # the key's own range would pass a hub's every other edge.
                        "SELECT rid, other, name, named FROM edges INDEXED BY edges_by_relation "
                        "WHERE node = ? AND way = ? AND rid = ? ORDER BY seq LIMIT ?",
                        (node, way, rid, cap if cap < 0 else cap - len(found))).fetchall()
                    if 0 <= cap <= len(found):
                        break
        relation_of = self._relations
        return [(relation_of[rid], other, name, named) for rid, other, name, named in found]

    def relation_counts(self, node: str, way: int, cap: int) -> dict[str, int]:
        """Each relation `node` has rows of, in one way, counted up to `cap`: a seek for each
        of its relations (the next relation after the last one, a skip scan), however many
        rows it has (a hub's tens of thousands are not read)."""
        with self._lock:
            found = self._db.execute(_RELATION_COUNTS, (node, way, cap)).fetchall()
        return {self._relations[rid]: count for rid, count in found}


_RELATION_COUNTS = """
    WITH RECURSIVE relation (rid) AS (
        SELECT min(rid) FROM edges WHERE node = ?1 AND way = ?2
        UNION ALL
        SELECT (SELECT min(rid) FROM edges WHERE node = ?1 AND way = ?2 AND rid > relation.rid)
        FROM relation WHERE relation.rid IS NOT NULL)
    SELECT rid, (SELECT count(*) FROM (SELECT 1 FROM edges WHERE node = ?1 AND way = ?2 AND rid = relation.rid
                                       LIMIT ?3))
    FROM relation WHERE rid IS NOT NULL
"""


def _write(db: sqlite3.Connection, rows: Iterable[tuple[str, int, str, str]], names: Path | None) -> None:
    """The tables, filled: rows go to a scratch table in scan order, then into the B-tree
    sorted by key (SQLite takes ascending keys several times faster than scattered ones)."""
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("PRAGMA cache_size=-262144")  # 256 MiB for the sort
    if names is not None:  # not in a transaction: SQLite attaches only outside one
        db.execute("ATTACH DATABASE ? AS names", (f"{names.resolve().as_uri()}?mode=ro",))
    db.execute("BEGIN")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("CREATE TABLE relations (rid INTEGER PRIMARY KEY, relation TEXT NOT NULL UNIQUE)")
    db.execute("CREATE TEMP TABLE scanned (node TEXT, way INTEGER, seq INTEGER, rid INTEGER, other TEXT)")
    relation_ids: dict[str, int] = {}
    holds_values = False
    chunk: list[tuple[str, int, int, int, str]] = []
    for seq, (node, way, relation, other) in enumerate(rows):
        rid = relation_ids.get(relation)
        if rid is None:
            rid = relation_ids[relation] = len(relation_ids)
        holds_values = holds_values or way == VALUE
        chunk.append((node, way, seq, rid, other))
        if len(chunk) == _ROWS_A_STATEMENT:
            db.executemany("INSERT INTO scanned VALUES (?, ?, ?, ?, ?)", chunk)
            chunk.clear()
    db.executemany("INSERT INTO scanned VALUES (?, ?, ?, ?, ?)", chunk)
    db.executemany("INSERT INTO relations VALUES (?, ?)", [(rid, r) for r, rid in relation_ids.items()])
    db.execute("CREATE TABLE edges (node TEXT NOT NULL, way INTEGER NOT NULL, seq INTEGER NOT NULL, "
               "rid INTEGER NOT NULL, other TEXT NOT NULL, name TEXT, named INTEGER NOT NULL, "
               "PRIMARY KEY (node, way, seq)) WITHOUT ROWID")
    if names is None:
        db.execute(f"INSERT INTO edges SELECT *, NULL, {ASK_STORE} FROM scanned ORDER BY node, way, seq")
    else:
        db.execute(f"INSERT INTO edges SELECT s.*, d.name, CASE WHEN d.id IS NULL THEN {UNNAMED} "
                   f"WHEN d.name IS NULL THEN {ASK_STORE} ELSE {NAMED} END "
                   "FROM scanned AS s LEFT JOIN names.display AS d ON d.id = s.other AND s.way != ? "
                   "ORDER BY s.node, s.way, s.seq", (VALUE,))
    db.execute("DROP TABLE scanned")
    # An entity's relations a seek each, and one relation's edges in order (the hub fill).
    db.execute("CREATE INDEX edges_by_relation ON edges (node, way, rid)")
    db.executemany("INSERT INTO meta VALUES (?, ?)", [("version", _VERSION), ("values", str(int(holds_values)))])
    db.execute("COMMIT")
