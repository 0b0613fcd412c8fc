"""Name search by tokens: the rule every backend follows, and the SQLite side index that
gives the embedded Oxigraph store its text index.

A partial match is a name whose normalised form (`ids.normalize_name`) has, for every
token of the normalised query, a token starting with it ("hanks" and "tom han" find
"Tom Hanks", and so does "hanks tom"). It is a `prefix` match when the whole normalised
name starts with the query, a `contains` match otherwise. Backends look candidates up in
a text index (SQLite FTS5 here, Virtuoso's free-text index, Neo4j's and FalkorDB's
full-text indexes), shortest names first, and `partial_kind` has the last word, so
every backend answers by the same rule whatever its index's own tokenizer does.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing
from pathlib import Path

from kg_store.ids import normalize_name
from kg_store.model import MatchKind

#: The side file's name, inside an on-disk Oxigraph store's folder.
SIDE_FILE = "kgqa-names.sqlite"
_VERSION = "3"  # 1: an insert trigger fed FTS5 (dev only, never released); 2: no `display` table
# Candidates are stored with rowid = length << 36 | sequence: FTS5 returns matches in
# rowid order, so "the first N matches" are the N shortest names without sorting them all.
_SEQ_BITS = 36
_MAX_LEN = (1 << 22) - 1
# Strings starting with q sort before q + this (SQLite compares UTF-8 bytes, code point order).
_TOP = "\U0010ffff"
# Ids a display-name lookup binds at once (SQLite allows 32,766 parameters).
_LOOKUP_BATCH = 500
#: A read-only connection's memory map: address space, not memory (the OS pages the file in
#: as it is read), capped by SQLite's own build limit.
MMAP_BYTES = 1 << 40


def query_tokens(normalized: str) -> list[str]:
    """The distinct tokens of a normalised query, in order."""
    return list(dict.fromkeys(normalized.split()))


def partial_kind(normalized: str, tokens: list[str], norm: str) -> MatchKind | None:
    """How the normalised name `norm` matches the normalised query, or None."""
    if norm.startswith(normalized):
        return "prefix"
    name_tokens = norm.split()
    if all(any(t.startswith(q) for t in name_tokens) for q in tokens):
        return "contains"
    return None


def fts5_query(tokens: list[str]) -> str:
    """An FTS5 MATCH expression: every token as a quoted prefix term, ANDed. Quoted, a
    token is a string whatever it holds (`AND`, `NEAR`, `*`, `-`, `"` doubled)."""
    return " AND ".join('"' + t.replace('"', '""') + '"*' for t in tokens)


class NameIndex:
    """Names of entities in SQLite: a table of (id, name, normalised name) and an FTS5
    index of the normalised names. `path` None keeps it in memory.

    Writes happen only through `add` (idempotent: an (id, name) pair is stored once);
    the `state` row says whether the index matches its store: `clean`, or `dirty` while a
    write is under way (a crash in between leaves it dirty, and the store rebuilds it).
    Safe to share between threads.
    """

    def __init__(self, path: Path | None, *, read_only: bool = False) -> None:
        self.path = path
        self.read_only = read_only
        if path is None:
            self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        elif read_only:
            self._db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False,
                                       isolation_level=None, timeout=30)
        else:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._lock = threading.Lock()
        if read_only:
            # Pages read through a memory map, not a system call each: a walk looks up the
            # names of thousands of neighbours a question, each a seek into the id table.
            self._db.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        else:
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA cache_size=-65536")  # 64 MiB: big loads touch many pages
            self._db.execute("CREATE TEMP TABLE IF NOT EXISTS incoming "
                             "(rid INTEGER PRIMARY KEY, id TEXT, name TEXT, norm TEXT)")

    # ---- life cycle ------------------------------------------------------------------
    @classmethod
    def create(cls, path: Path | None) -> NameIndex:
        """A new, empty and clean index (an existing file at `path` is replaced)."""
        if path is not None:
            for leftover in (path, path.with_name(path.name + "-journal")):
                leftover.unlink(missing_ok=True)
        index = cls(path)
        index._create_tables()
        return index

    @classmethod
    def open(cls, path: Path, *, read_only: bool = False) -> NameIndex | None:
        """The index at `path`, or None when there is none or it is not one of ours."""
        if not path.is_file():
            return None
        try:
            index = cls(path, read_only=read_only)
            if index._meta("version") != _VERSION:
                index.close()
                return None
            return index
        except sqlite3.DatabaseError:
            return None

    @classmethod
    def build(cls, path: Path | None, names: Iterable[tuple[str, str]], *, replace: bool = True) -> NameIndex:
        """An index of `names` (entity id, name), written beside `path` and moved there in
        one step, so no reader ever sees half an index. With `replace` False an index
        someone else put there first is kept (and returned, when it is one of ours)."""
        if path is None:
            index = cls.create(None)
            index.add(names)
            return index
        tmp = path.with_name(f"{path.name}.build-{os.getpid()}-{threading.get_ident()}")
        try:
            with closing(cls.create(tmp)) as fresh:
                fresh._db.execute("PRAGMA journal_mode=OFF")
                fresh._db.execute("PRAGMA synchronous=OFF")
                fresh.add(names)
                fresh.optimize()
            if replace:
                os.replace(tmp, path)
            else:
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    pass
        finally:
            tmp.unlink(missing_ok=True)
        opened = cls.open(path)
        if opened is None:
            raise OSError(f"the name index at {path} cannot be read back")
        return opened

    def _create_tables(self) -> None:
        self._db.executescript(f"""
            BEGIN;
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE names (rid INTEGER PRIMARY KEY, id TEXT NOT NULL, name TEXT NOT NULL,
                                norm TEXT NOT NULL, UNIQUE (id, name));
            CREATE INDEX names_norm ON names (norm);
            -- The name a lookup shows for an entity, keyed by id: NULL where it has several,
            -- which only the store can choose between (`display_names`).
            CREATE TABLE display (id TEXT PRIMARY KEY, name TEXT) WITHOUT ROWID;
            -- Contentless (the text is in `names`), no positions (no phrase queries), prefix
            -- indexes for 1-3 characters. The ascii tokenizer splits on ASCII non-alphanumerics
            -- only ('_' kept): normalised names are \\w runs and spaces, so its tokens are
            -- exactly norm.split().
            CREATE VIRTUAL TABLE names_fts USING fts5 (norm, content='', detail=none, prefix='1 2 3',
                                                       tokenize="ascii tokenchars '_'");
            INSERT INTO meta VALUES ('version', '{_VERSION}'), ('state', 'clean'), ('seq', '0');
            COMMIT;
        """)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    @property
    def clean(self) -> bool:
        with self._lock:
            return self._meta("state") == "clean"

    # ---- writes ----------------------------------------------------------------------
    def mark_dirty(self) -> None:
        """Say, durably, that the store is about to change: `add` says clean again."""
        with self._lock:
            self._db.execute("UPDATE meta SET value = 'dirty' WHERE key = 'state'")

    def add(self, names: Iterable[tuple[str, str]]) -> None:
        """Index (entity id, name) pairs not indexed yet, and mark the index clean."""
        with self._lock:
            db = self._db
            db.execute("BEGIN")
            try:
                seq = int(self._meta("seq") or 0)
                for chunk in _chunks(names, 100_000):
                    rows = []
                    for entity, name in dict.fromkeys(chunk):
                        norm = normalize_name(name)
                        seq += 1
                        rows.append((min(len(norm), _MAX_LEN) << _SEQ_BITS | seq, entity, name, norm))
                    rows.sort()  # FTS5 and the rowid B-tree take ascending rowids several times faster
                    # Through a scratch table: only pairs not indexed yet go on, and FTS5 gets
                    # them in one statement (a trigger per row was 5x slower).
                    db.executemany("INSERT INTO temp.incoming (rid, id, name, norm) VALUES (?, ?, ?, ?)", rows)
                    db.execute("DELETE FROM temp.incoming WHERE EXISTS "
                               "(SELECT 1 FROM names AS n WHERE n.id = incoming.id AND n.name = incoming.name)")
                    db.execute("INSERT INTO names SELECT rid, id, name, norm FROM temp.incoming ORDER BY rid")
                    # ORDER BY id: the B-tree takes ascending keys fastest. `WHERE true` lets
                    # SQLite parse the upsert after a SELECT.
                    db.execute("INSERT INTO display (id, name) SELECT id, name FROM temp.incoming WHERE true ORDER BY id "
                               "ON CONFLICT (id) DO UPDATE SET name = NULL")
                    db.execute("INSERT INTO names_fts (rowid, norm) SELECT rid, norm FROM temp.incoming ORDER BY rid")
                    db.execute("DELETE FROM temp.incoming")
                db.execute("UPDATE meta SET value = ? WHERE key = 'seq'", (str(seq),))
                db.execute("UPDATE meta SET value = 'clean' WHERE key = 'state'")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def clear(self) -> None:
        with self._lock:
            self._db.executescript("""
                BEGIN;
                DELETE FROM names;
                DELETE FROM display;
                INSERT INTO names_fts (names_fts) VALUES ('delete-all');
                UPDATE meta SET value = 'clean' WHERE key = 'state';
                UPDATE meta SET value = '0' WHERE key = 'seq';
                COMMIT;
            """)

    def optimize(self) -> None:
        """Merge the FTS5 segments into one (after a bulk load)."""
        with self._lock:
            self._db.execute("INSERT INTO names_fts (names_fts) VALUES ('optimize')")

    # ---- reads -----------------------------------------------------------------------
    def search(self, normalized: str, tokens: list[str], limit: int) -> list[tuple[str, str, str]]:
        """(id, name, normalised name) of up to `limit` shortest names matching every token
        as a prefix, and of up to `limit` names starting with the query (by the B-tree on
        the normalised names: these are the candidates for a `prefix` match whatever their
        length). Both lookups are index range reads that stop at `limit`."""
        with self._lock:
            db = self._db
            found = db.execute(
                "SELECT n.id, n.name, n.norm FROM (SELECT rowid AS rid FROM names_fts WHERE names_fts MATCH ? "
                "ORDER BY rowid LIMIT ?) AS hit JOIN names AS n ON n.rid = hit.rid",
                (fts5_query(tokens), limit),
            ).fetchall()
            found += db.execute(
                "SELECT id, name, norm FROM names WHERE norm >= ? AND norm < ? ORDER BY norm LIMIT ?",
                (normalized, normalized + _TOP, limit),
            ).fetchall()
        return found

    def display_names(self, ids: Sequence[str]) -> tuple[dict[str, str | None], list[str]]:
        """The name each id shows (None: it has none), and the ids with several names, whose
        shown name the store chooses (by language). Batched: one indexed query per 500 ids."""
        shown: dict[str, str | None] = dict.fromkeys(ids)
        several: list[str] = []
        unique = list(shown)
        with self._lock:
            for start in range(0, len(unique), _LOOKUP_BATCH):
                part = unique[start:start + _LOOKUP_BATCH]
                query = f"SELECT id, name FROM display WHERE id IN ({','.join('?' * len(part))})"
                for entity, name in self._db.execute(query, part):
                    if name is None:
                        several.append(entity)
                    else:
                        shown[entity] = name
        return shown, several

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM names").fetchone()[0]


def _chunks(items: Iterable[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
    chunk: list[tuple[str, str]] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
