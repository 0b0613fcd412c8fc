"""Load a KG file into any store: streaming, batched, counted, idempotent."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from kg_store.base import GraphStore
from kg_store.model import Attribute, LoadBatch, Triple
from loaders.collector import cyclic_gc_paused
from loaders.freebase_nt import parse_freebase_nt
from loaders.rdf import RdfOptions, parse_rdf
from loaders.records import Malformed, MalformedInput, Name, Record, Skipped
from loaders.rog import parse_rog
from loaders.tabular import fb15k_total_bytes, parse_fb15k237, parse_name_triples

Parser = Callable[[Path, tuple[str, ...], Callable[[int], None] | None], Iterator[Record]]

PARSERS: dict[str, Parser] = {
    "freebase-nt": parse_freebase_nt,
    "fb15k237": parse_fb15k237,
    "metaqa": partial(parse_name_triples, sep="|"),  # type: ignore[dict-item]
    "tsv": partial(parse_name_triples, sep="\t"),  # type: ignore[dict-item]
    "rog": parse_rog,
    "rdf": parse_rdf,  # and its RdfOptions: parse_records
}
FORMATS = tuple(PARSERS)
MAX_REPORTED_MALFORMED = 20


@dataclass
class LoadReport:
    format: str
    path: str
    store: str
    triples: int = 0
    names: int = 0
    attributes: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    malformed: int = 0
    malformed_examples: list[tuple[int, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def records(self) -> int:
        return self.triples + self.names + self.attributes

    def as_dict(self) -> dict:
        return {
            "format": self.format, "path": self.path, "store": self.store,
            "triples": self.triples, "names": self.names, "attributes": self.attributes,
            "skipped": dict(self.skipped), "malformed": self.malformed,
            "malformed_examples": [{"line": n, "reason": r} for n, r in self.malformed_examples],
            "seconds": round(self.seconds, 3),
            "records_per_s": round(self.records / self.seconds) if self.seconds else None,
        }


def parse_records(
    fmt: str,
    path: Path,
    schema_prefixes: tuple[str, ...],
    on_bytes: Callable[[int], None] | None = None,
    rdf: RdfOptions | None = None,
) -> Iterator[Record]:
    """`rdf`: how to read an RDF file (format `rdf`): its format, label predicates, language."""
    if fmt not in PARSERS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {path}")
    if path.is_dir() and fmt != "fb15k237":
        raise MalformedInput(str(path), 0, f"format {fmt} reads a file, got a folder")
    if fmt == "rdf":
        return parse_rdf(path, schema_prefixes, on_bytes, rdf)
    return PARSERS[fmt](path, schema_prefixes, on_bytes)


def input_bytes(fmt: str, path: Path) -> int:
    return fb15k_total_bytes(path) if fmt == "fb15k237" else path.stat().st_size


def load_file(
    store: GraphStore,
    fmt: str,
    path: Path,
    *,
    strict: bool = False,
    schema_prefixes: tuple[str, ...] | None = None,
    on_bytes: Callable[[int], None] | None = None,
    on_batch: Callable[[LoadReport], None] | None = None,
    rdf: RdfOptions | None = None,
    on_settle: Callable[[], None] | None = None,
) -> LoadReport:
    """Stream `path` into `store` in batches of `store.write_batch_size` records, then
    settle the store (`after_load`: compaction, index builds; `on_settle` is told first).

    Malformed lines are counted (the first few kept with line numbers) and skipped, or
    raise MalformedInput at once when `strict`. Batches are written on a background
    thread while the next one is parsed (store drivers release the GIL while they
    write); at most two batches are in memory, so memory stays bounded.
    """
    with cyclic_gc_paused():
        return _load(store, fmt, path, strict, schema_prefixes, on_bytes, on_batch, rdf, on_settle)


def _load(
    store: GraphStore,
    fmt: str,
    path: Path,
    strict: bool,
    schema_prefixes: tuple[str, ...] | None,
    on_bytes: Callable[[int], None] | None,
    on_batch: Callable[[LoadReport], None] | None,
    rdf: RdfOptions | None = None,
    on_settle: Callable[[], None] | None = None,
) -> LoadReport:
    prefixes = store.schema_prefixes if schema_prefixes is None else schema_prefixes
    report = LoadReport(fmt, str(path), store.display_url)
    started = time.perf_counter()

    def write(done: LoadBatch, load: Callable[[], None]) -> None:
        load()
        report.triples += len(done.triples)
        report.names += len(done.names)
        report.attributes += len(done.attributes)
        report.seconds = time.perf_counter() - started
        if on_batch:
            on_batch(report)

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgqa-load") as pool:
        pending: Future[None] | None = None
        batch, size, limit = LoadBatch(), 0, store.write_batch_size

        def hand_over() -> None:
            nonlocal pending, batch, size
            # Encoded here while the writer still loads the last batch, then written there
            # (GraphStore.prepare_write).
            load = store.prepare_write(batch) if size else None
            if pending is not None:
                pending.result()  # re-raises the writer's error here, in the caller
            pending = pool.submit(write, batch, load) if load is not None else None
            batch, size = LoadBatch(), 0

        try:
            for record in parse_records(fmt, path, prefixes, on_bytes, rdf):
                if isinstance(record, Triple):
                    batch.triples.append(record)
                elif isinstance(record, Name):
                    batch.names.append((record.entity, record.name))
                elif isinstance(record, Attribute):
                    batch.attributes.append(record)
                elif isinstance(record, Skipped):
                    report.skipped[record.reason] += 1
                    continue
                elif isinstance(record, Malformed):
                    if strict:
                        raise MalformedInput(str(path), record.line_no, record.reason)
                    report.malformed += 1
                    if len(report.malformed_examples) < MAX_REPORTED_MALFORMED:
                        report.malformed_examples.append((record.line_no, record.reason))
                    continue
                size += 1
                if size >= limit:
                    hand_over()
            hand_over()
        finally:
            if pending is not None:
                pending.result()
    if on_settle is not None:
        on_settle()
    store.after_load()
    report.seconds = time.perf_counter() - started
    return report
