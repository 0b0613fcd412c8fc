"""The chat history's SQLite file, opened only when it is sound: a damaged one (a torn
write, a bad disk, a file that is not a database) is moved aside with a note of what to
do, and a fresh history starts beside it. Nothing is dropped in silence or overwritten."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path


def open_chat_db(path: Path, warn: Callable[[str], None]) -> sqlite3.Connection:
    """A connection to the chat database at `path`, checked by SQLite's own integrity
    check. When the file is damaged it is renamed `NAME.damaged-TIME` and `warn` is told
    which file, what SQLite said and how to recover the history from the copy."""
    path.parent.mkdir(parents=True, exist_ok=True)
    problem = damage(path) if path.exists() else None
    if problem is not None:
        aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        path.rename(aside)
        for journal in ("-wal", "-shm", "-journal"):  # they belong to the damaged file
            sidecar = path.with_name(path.name + journal)
            if sidecar.exists():
                sidecar.rename(aside.with_name(aside.name + journal))
        warn(f"the chat history {path} is damaged ({problem}); it was moved to {aside} and a new history "
             f"starts. To recover what can be read: sqlite3 {aside} .recover | sqlite3 recovered.sqlite")
    return sqlite3.connect(path, check_same_thread=False)


def damage(path: Path) -> str | None:
    """What is wrong with the SQLite file at `path`, or None when its integrity check passes."""
    connection = None
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = connection.execute("PRAGMA integrity_check").fetchall()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        if connection is not None:
            connection.close()
    found = [row[0] for row in rows]
    return None if found == ["ok"] else "; ".join(found[:3])
