"""A damaged chat history is found when it is opened, kept aside, and said so: the
thread's earlier turns never vanish without a word, and no traceback is shown."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kgqa.chat_db import damage, open_chat_db


def history(path: Path, rows: int = 2_000) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE turns (id INTEGER PRIMARY KEY, text TEXT)")
        db.execute("CREATE INDEX turns_text ON turns(text)")
        db.executemany("INSERT INTO turns (text) VALUES (?)", [(f"turn {i} " + "x" * 200,) for i in range(rows)])
    return path


def damage_inner_pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(3 * page, len(data) - page, 7 * page):  # past the header, through tables and index
        data[offset + 100:offset + 400] = b"\xff" * 300
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("harm", ["inner pages", "header", "truncated"])
def test_a_damaged_history_is_moved_aside_and_said_so(tmp_path: Path, harm: str) -> None:
    path = history(tmp_path / "chat.sqlite")
    assert damage(path) is None
    if harm == "inner pages":
        damage_inner_pages(path)
    elif harm == "header":
        path.write_bytes(b"not a database at all" + path.read_bytes()[21:])
    else:
        path.write_bytes(path.read_bytes()[: 4096 * 5 + 100])
    original = path.read_bytes()
    warnings: list[str] = []
    connection = open_chat_db(path, warnings.append)
    try:
        connection.execute("CREATE TABLE t (x)")  # a fresh, working history
    finally:
        connection.close()
    kept = [p for p in tmp_path.iterdir() if ".damaged-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1 and kept[0].read_bytes() == original  # kept as it was, never overwritten
    assert len(warnings) == 1 and str(path) in warnings[0] and str(kept[0]) in warnings[0] and ".recover" in warnings[0]


def test_a_sound_history_opens_as_it_is(tmp_path: Path) -> None:
    path = history(tmp_path / "chat.sqlite", rows=10)
    warnings: list[str] = []
    connection = open_chat_db(path, warnings.append)
    assert connection.execute("SELECT count(*) FROM turns").fetchone() == (10,)
    connection.close()
    assert warnings == [] and [p.name for p in tmp_path.iterdir()] == ["chat.sqlite"]
