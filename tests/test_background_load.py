"""Loading in a child process (`kgqa demo`'s first use): the store is loaded once, errors
come back as the caller's own kinds, and nothing is left running."""

from __future__ import annotations

import gc
import gzip
import multiprocessing
from pathlib import Path

import pytest

from kg_store import InputError, LoadBatch, StoreError, Triple, open_store
from loaders.background import BackgroundLoad

KB = "Movie A|directed_by|Person B\nMovie A|starred_actors|Person C\nMovie D|directed_by|Person B\n"


def test_the_child_completes_a_store_once_and_reports_it(tmp_path: Path) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text(KB)
    url = f"oxigraph:{tmp_path / 'store'}"
    started: list[bool] = []
    read: list[int] = []
    partial = open_store(url)  # a load stopped part way (a Ctrl-C) left one fact of three
    partial.write(LoadBatch(triples=[Triple("Movie A", "directed_by", "Person B")]))
    partial.close()
    del partial  # Oxigraph lets go of its lock when the store is collected
    gc.collect()
    with BackgroundLoad(url, "metaqa", kb, store_options={}, facts=3, on_start=lambda: started.append(True),
                        on_bytes=read.append) as loading:
        report = loading.wait()
    assert report is not None and (report.triples, report.names) == (3, 4)
    assert started == [True] and sum(read) == kb.stat().st_size
    store = open_store(url, read_only=True)
    try:  # written where the caller looks, names searchable
        assert store.stats().triples == 3
        assert {m.id for m in store.search_entities("person", limit=5)} == {"Person B", "Person C"}
    finally:
        store.close()
    with BackgroundLoad(url, "metaqa", kb, store_options={}, facts=3,
                        on_start=lambda: started.append(True)) as again:  # all there: nothing to do
        assert again.wait() is None
    assert started == [True]


def test_a_truncated_file_and_an_unreachable_store_are_the_callers_errors(tmp_path: Path) -> None:
    broken = tmp_path / "kb.txt.gz"
    broken.write_bytes(gzip.compress(KB.encode() * 50)[:-20])
    with pytest.raises(InputError, match="cannot read file"), \
            BackgroundLoad(f"oxigraph:{tmp_path / 'store'}", "metaqa", broken, store_options={}) as loading:
        loading.wait()
    with pytest.raises(StoreError, match="cannot reach"), \
            BackgroundLoad("sparql+http://127.0.0.1:9/sparql", "metaqa", broken, store_options={}) as loading:
        loading.wait()


def test_leaving_before_the_load_ends_stops_the_child(tmp_path: Path) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text("".join(f"Movie {i}|directed_by|Person {i % 97}\n" for i in range(200_000)))
    url = f"oxigraph:{tmp_path / 'store'}"
    with BackgroundLoad(url, "metaqa", kb, store_options={}):
        pass  # the caller failed before waiting
    assert multiprocessing.active_children() == []
    store = open_store(url)  # its lock went with it; what it wrote stays, and a rerun completes it
    try:
        assert store.stats().triples < 200_000
    finally:
        store.close()
