"""Store benchmark: load the FB15k-237 Freebase N-Triples into each backend, then time
1-hop, 2-hop and 100-entity batched neighbour queries. A plain Python dict adjacency,
built from the same records in the same run, is the floor. `--synthetic` adds Freebase-
shaped KGs of other sizes (bench/synthetic_kg.py), so the growth of each cost is visible.

    python bench/store.py --json [--backends dict,oxigraph,virtuoso] [--samples 200]
    python bench/store.py --json --backends dict,oxigraph --synthetic 1000000,5000000

Prints one JSON object per backend:
{"data", "backend", "load_triples_per_s", "hop1_p50_ms", "hop2_p50_ms", "batch100_neighbors_p50_ms",
 "load_share_of_floor", "hop1_x_floor", "hop2_x_floor", ...}: the last three against the dict floor
measured on the same data in the same run.
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

from bench.synthetic_kg import cached_synthetic_kg
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
    elif name == "oxigraph-memory":
        yield "oxigraph:", _no_op
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


def profile_oxigraph(data: Path, hop1_ids: list[str], workdir: Path) -> dict:
    """Where an Oxigraph load and lookup spend their time, each part timed alone: our parse
    and N-Triples encoding in the loader's batches (Python, one core), Oxigraph's own bulk load of the whole
    decompressed file in one call (Rust, its ceiling), and a lookup's two raw index scans
    with no names and no Python objects of ours."""
    import gzip

    import pyoxigraph as ox

    from kg_store import sparql_text
    from kg_store.ids import to_iri
    from kg_store.model import LoadBatch
    from kg_store.oxigraph import OxigraphStore

    started = time.perf_counter()
    records = list(parse_records("freebase-nt", data, DEFAULT_SCHEMA_PREFIXES))
    parse_s = time.perf_counter() - started
    batch = LoadBatch(triples=[r for r in records if isinstance(r, Triple)],
                      names=[(r.entity, r.name) for r in records if isinstance(r, Name)])
    del records
    step = OxigraphStore.write_batch_size  # encoded batch by batch, as a load does
    started = time.perf_counter()
    for start in range(0, len(batch.triples), step):
        sparql_text.ntriples(LoadBatch(triples=batch.triples[start:start + step],
                                       names=batch.names[start:start + step]))
    encode_s = time.perf_counter() - started
    raw = (gzip.open if data.suffix == ".gz" else open)(data, "rb").read()
    engine = ox.Store(str(workdir / "raw"))
    started = time.perf_counter()
    engine.bulk_load(input=raw, format=ox.RdfFormat.N_TRIPLES, lenient=True)
    engine.optimize()
    engine_s = time.perf_counter() - started
    del raw
    default = ox.DefaultGraph()

    def two_scans(entity: str) -> int:
        node = ox.NamedNode(to_iri(entity))
        return len(list(engine.quads_for_pattern(node, None, None, default))) + len(
            list(engine.quads_for_pattern(None, None, node, default)))

    facts = len(batch.triples)
    return {
        "backend": "oxigraph-profile", "triples": facts,
        "parse_s": round(parse_s, 2), "encode_s": round(encode_s, 2),
        "engine_load_s": round(engine_s, 2), "engine_load_triples_per_s": round(facts / engine_s),
        "hop1_raw_scans_p50_ms": p50_ms(two_scans, hop1_ids),
        "note": "parts timed alone: our parse and encoding (Python), Oxigraph's bulk load of the raw file "
                "(one call, then optimize), a 1-hop's two index scans without names",
    }


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


def bench_dataset(label: str, data: Path, backends: list[str], samples: int, seed: int) -> Iterator[dict]:
    """One row per backend for one data file, each tagged with the file's label."""
    floor = DictGraph(data)
    # The floor's millions of objects would make every later GC pass slow, taxing the
    # backends measured after it in this process: park them outside the collector.
    gc.collect()
    gc.freeze()
    rng = random.Random(seed)
    entities = sorted(set(floor.out) | set(floor.inn))
    hop1_ids = rng.sample(entities, samples)
    batches = [rng.sample(entities, 100) for _ in range(max(20, samples // 10))]
    floor_row = {
        "backend": "dict",
        "load_triples_per_s": round(floor.triples / floor.seconds),
        "hop1_p50_ms": p50_ms(floor.hop1, hop1_ids),
        "hop2_p50_ms": p50_ms(floor.hop2, hop1_ids[:50]),
        "batch100_neighbors_p50_ms": p50_ms(floor.batch, batches),
        "triples": floor.triples,
        "note": "floor: parse only (no store), lookups in Python dicts",
    }
    for name in backends:
        if name == "dict":
            row = floor_row
        elif name == "oxigraph-profile":
            with tempfile.TemporaryDirectory(prefix="kgqa-bench-profile-") as tmp:
                row = profile_oxigraph(data, hop1_ids, Path(tmp))
            row["hop1_raw_x_floor"] = round(row["hop1_raw_scans_p50_ms"] / floor_row["hop1_p50_ms"], 1)
        else:
            with tempfile.TemporaryDirectory(prefix=f"kgqa-bench-{name}-") as tmp, backend_url(name, Path(tmp)) as (
                url,
                after_load,
            ):
                if url is None:
                    row = {"backend": name, "skipped": "not installed or not configured"}
                else:
                    with open_store(url) as store:
                        row = {"backend": name, **bench_store(store, data, hop1_ids, batches, after_load)}
                        row.update(against_floor(row, floor_row))
        yield {"data": label, **row}
    del floor, entities
    gc.unfreeze()
    gc.collect()


def against_floor(row: dict, floor: dict) -> dict:
    """A store's figures as multiples of the floor's: load as a share of its rate, lookups as x-times."""
    return {"load_share_of_floor": round(row["load_triples_per_s"] / floor["load_triples_per_s"], 2),
            "hop1_x_floor": round(row["hop1_p50_ms"] / floor["hop1_p50_ms"], 1),
            "hop2_x_floor": round(row["hop2_p50_ms"] / floor["hop2_p50_ms"], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--synthetic", default="",
                        help="comma list of sizes in facts (1000000,5000000): also run on synthetic "
                             "Freebase-shaped KGs of these sizes (bench/synthetic_kg.py), instead of --data "
                             "when --no-data")
    parser.add_argument("--no-data", action="store_true", help="skip --data, run the synthetic sizes only")
    parser.add_argument("--synthetic-dir", type=Path, default=Path(tempfile.gettempdir()) / "kgqa-bench-data",
                        help="where the synthetic KGs are written once and reused")
    parser.add_argument("--backends", default="dict,oxigraph,virtuoso,falkordb,neo4j",
                        help="comma list: dict,memory,oxigraph,oxigraph-memory,oxigraph-profile,virtuoso,falkordb,neo4j")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="JSON lines only (the default output is also JSON)")
    args = parser.parse_args()
    datasets: list[tuple[str, Path]] = []
    if not args.no_data:
        if not args.data.exists():
            raise SystemExit(f"data not found: {args.data}")
        datasets.append((args.data.name.split(".")[0], args.data))
    for size in filter(None, args.synthetic.split(",")):
        datasets.append((f"synthetic-{int(size):,}", cached_synthetic_kg(args.synthetic_dir, int(size), args.seed)))
    for label, data in datasets:
        for row in bench_dataset(label, data, args.backends.split(","), args.samples, args.seed):
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
