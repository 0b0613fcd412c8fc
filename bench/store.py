"""Store benchmark: load the FB15k-237 Freebase N-Triples into each backend, then time
1-hop, 2-hop and 100-entity batched neighbour queries. A plain Python dict adjacency,
built from the same records in the same run, is the floor.

    python bench/store.py --json [--backends dict,oxigraph,virtuoso] [--samples 200]

Prints one JSON object per backend:
{"backend", "load_triples_per_s", "hop1_p50_ms", "hop2_p50_ms", "batch100_neighbors_p50_ms", ...}
Virtuoso and FalkorDB are started here, on 127.0.0.1, in a temporary folder; a real
Neo4j is used when NEO4J_URI is set and `neo4j` is among --backends.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg_store import GraphStore, Triple, open_store
from kg_store.base import DEFAULT_SCHEMA_PREFIXES
from loaders.load import load_file, parse_records
from loaders.records import Name

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "freebase" / "fb15k237_freebase.nt.gz"


def p50_ms(fn: Callable[[object], object], inputs: list) -> float:
    fn(inputs[0])  # warm caches and connections once
    times = []
    for item in inputs:
        start = time.perf_counter()
        fn(item)
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 4)


class DictGraph:
    """The floor: adjacency lists and a name table in plain dicts."""

    def __init__(self, path: Path) -> None:
        self.out: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.inn: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.name: dict[str, str] = {}
        start = time.perf_counter()
        self.triples = 0
        for record in parse_records("freebase-nt", path, DEFAULT_SCHEMA_PREFIXES):
            if isinstance(record, Triple):
                self.out[record.head].append((record.relation, record.tail))
                self.inn[record.tail].append((record.relation, record.head))
                self.triples += 1
            elif isinstance(record, Name):
                self.name.setdefault(record.entity, record.name)
        self.seconds = time.perf_counter() - start

    def hop1(self, entity: str) -> list[tuple]:
        get = self.name.get
        return [(r, t, get(t), "out") for r, t in self.out.get(entity, ())] + [
            (r, h, get(h), "in") for r, h in self.inn.get(entity, ())
        ]

    def batch(self, entities: list[str]) -> dict[str, list[tuple]]:
        return {e: self.hop1(e) for e in entities}

    def hop2(self, entity: str, max_degree: int = 500) -> set[tuple]:
        seen, frontier, edges = {entity}, [entity], set()
        for _ in range(2):
            nxt = []
            for node in frontier:
                rows = self.hop1(node)
                for rel, other, _, direction in rows[: 2 * max_degree]:
                    edges.add((node, rel, other) if direction == "out" else (other, rel, node))
                    if other not in seen:
                        seen.add(other)
                        nxt.append(other)
            frontier = nxt
        return edges


def _no_op() -> None:
    """Nothing to settle after a load."""


@contextmanager
def backend_url(name: str, workdir: Path) -> Iterator[tuple[str | None, Callable[[], None]]]:
    """The store URL for a backend (None if unavailable) and what to run after the load."""
    if name == "oxigraph":
        yield f"oxigraph:{workdir / 'oxigraph'}", _no_op
    elif name == "memory":
        yield "memory:", _no_op
    elif name == "virtuoso":
        from tests.servers.virtuoso import VirtuosoServer

        if not VirtuosoServer.available():
            yield None, _no_op
            return
        with VirtuosoServer(workdir / "virtuoso") as server:
            # A checkpoint after the load, as Virtuoso runs on its own every hour: queries
            # against freshly inserted, uncheckpointed data are ~10x slower.
            yield (
                (f"sparql+http://dba:{server.password}@127.0.0.1:{server.http_port}/sparql"
                 "?update=/sparql-auth&gsp=/sparql-graph-crud-auth&graph=urn:kgqa:bench"),
                lambda: server.isql("checkpoint;"),
            )
    elif name == "falkordb":
        from tests.servers.falkordb import FalkorDBServer

        if not FalkorDBServer.available():
            yield None, _no_op
            return
        with FalkorDBServer(workdir / "falkordb") as server:
            yield server.bolt_url, _no_op
    elif name == "neo4j":
        yield os.environ.get("NEO4J_URI"), _no_op
    else:
        raise SystemExit(f"unknown backend {name!r}")


def bench_store(
    store: GraphStore, data: Path, hop1_ids: list[str], batches: list[list[str]], after_load: Callable[[], None]
) -> dict:
    store.clear()
    report = load_file(store, "freebase-nt", data)
    after_load()
    return {
        "load_triples_per_s": round(report.triples / report.seconds),
        "load_records_per_s": round(report.records / report.seconds),
        "hop1_p50_ms": p50_ms(lambda e: store.neighbors([e]), hop1_ids),
        "hop2_p50_ms": p50_ms(lambda e: store.subgraph([e], hops=2, max_degree=500, max_edges=100_000), hop1_ids[:50]),
        "batch100_neighbors_p50_ms": p50_ms(lambda ids: store.neighbors(ids), batches),
        "triples": report.triples,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--backends", default="dict,oxigraph,virtuoso,falkordb,neo4j", help="comma list: dict,memory,oxigraph,virtuoso,falkordb,neo4j")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="JSON lines only (the default output is also JSON)")
    args = parser.parse_args()
    if not args.data.exists():
        raise SystemExit(f"data not found: {args.data}")

    floor = DictGraph(args.data)
    # The floor's millions of objects would make every later GC pass slow, taxing the
    # backends measured after it in this process: park them outside the collector.
    gc.collect()
    gc.freeze()
    rng = random.Random(args.seed)
    entities = sorted(set(floor.out) | set(floor.inn))
    hop1_ids = rng.sample(entities, args.samples)
    batches = [rng.sample(entities, 100) for _ in range(max(20, args.samples // 10))]
    for name in args.backends.split(","):
        if name == "dict":
            row = {
                "backend": "dict",
                "load_triples_per_s": round(floor.triples / floor.seconds),
                "hop1_p50_ms": p50_ms(floor.hop1, hop1_ids),
                "hop2_p50_ms": p50_ms(floor.hop2, hop1_ids[:50]),
                "batch100_neighbors_p50_ms": p50_ms(floor.batch, batches),
                "triples": floor.triples,
                "note": "floor: parse only (no store), lookups in Python dicts",
            }
        else:
            with tempfile.TemporaryDirectory(prefix=f"kgqa-bench-{name}-") as tmp, backend_url(name, Path(tmp)) as (
                url,
                after_load,
            ):
                if url is None:
                    row = {"backend": name, "skipped": "not installed or not configured"}
                else:
                    with open_store(url) as store:
                        row = {"backend": name, **bench_store(store, args.data, hop1_ids, batches, after_load)}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
