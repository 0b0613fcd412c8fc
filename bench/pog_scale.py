"""PoG's store work as a KG grows: phase 1's walk over synthetic Freebase-shaped KGs.

    python bench/pog_scale.py --json [--sizes 1000000,5000000] [--topics 100] [--depth 3] [--store-dir DIR] [--shared-cache]
                                     [--pages cold|warm] [--backend virtuoso [--query-kinds]]

For each size, the synthetic KG (bench/synthetic_kg.py: hubs, CVT nodes, Zipf relations)
is loaded once under `--store-dir` through the backend's bulk path: `kgqa load` into the
embedded store, or (`--backend virtuoso`, a local Virtuoso started here) `kgqa export
--target virtuoso`'s files through Virtuoso's bulk loader (ld_dir, rdf_loader_run,
checkpoint), then settled as `kgqa store settle` settles it (the counts of its big entities'
facts; `settle_seconds`). Its facts a second are printed; a store already loaded is reused, and says so. Then
`--topics` named entities, drawn with a fixed seed, are each walked as PoG's phase 1 walks
a topic (`kg_store.paths.explore` to `--depth` hops, with the agent's own hub cap and
frontier from `PoGConfig`; its beam keeps `explore_beam` groups a hop in the store's order,
since no question ranks them: what is read is the same amount). No model is asked.

Prints one JSON object per size: the load's facts a second, and for the walks the store's seconds a
topic (p50, p95: nearest rank), the store calls and the rows (edges) they returned a topic.
A fresh neighbour cache per topic, and nothing the store object remembers of an earlier
topic's entities (the embedded store keeps names between calls: `forget_entities`): each
walk reads the store as a question's first would. `--shared-cache` walks every topic
through one cache instead, as `kgqa eval` does over a question set (hubs met by an earlier
topic are not read again). Where the store's pages are, `--pages`: `cold` drops the OS page
cache before the walks (Linux, as root: every first read is from disk, as after a reboot);
`warm` walks the topics once, untimed, before the timed walks (the OS holds the pages they
read, as a server's would after a while); `as-found`, the default, reads the store as an
earlier run left it (after a load or another size's walks: some from disk). On Virtuoso,
`--query-kinds` times each SPARQL query too and says where the store's time went: the size's
line gets `query_kinds` (each kind of query the walks sent, its count, seconds summed over
the two threads that read out- and in-edges at once, and rows), and a line per kind follows
it, the same a topic (`query_kind` says which).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.pog.config import PoGConfig
from bench.non_model_seconds import percentile
from bench.synthetic_kg import cached_synthetic_kg, named_entities
from kg_store import DEFAULT_SCHEMA_PREFIXES, GraphStore, open_store
from kg_store.paths import explore
from loaders.bulk import export_bulk
from loaders.load import load_file

GRAPH = "urn:kgqa:bench"


class TimedStore:
    """A store whose reads are timed and counted: seconds, calls and the rows they return."""

    def __init__(self, store: GraphStore) -> None:
        self._store, self.seconds, self.calls, self.rows = store, 0.0, 0, 0
        self._reached_twice: dict = {}

    def neighbors(self, ids, **options):
        hood = self._timed(self._store.neighbors, ids, **options)
        self.rows += sum(len(edges) for edges in hood.edges.values())
        return hood

    def names(self, ids):
        found = self._timed(self._store.names, ids)
        self.rows += len(found)
        return found

    # The store's own, its reads timed (remembered for the run, as a store object does).
    reached_twice = GraphStore.reached_twice

    def _reaches_twice(self, relation, forward, sample):
        return self._timed(self._store._reaches_twice, relation, forward, sample)

    def _timed(self, read, *args, **options):
        started = time.perf_counter()
        try:
            return read(*args, **options)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1


class SparqlQueryKinds:
    """Counts, seconds and rows of a SPARQL store's queries, by what they read (told from
    the text `kg_store.sparql_text` writes)."""

    KINDS = (("relation degrees", re.compile(r"GROUP BY \?s \?p")),
             ("pair edges", re.compile(r"WHERE \{ \{ VALUES \?s")),  # a branch an entity (`pair_edges_queries`)
             ("edge counts", re.compile(r"COUNT")),
             ("capped edges", re.compile(r"^SELECT \?s \?r \?x \?n.*LIMIT", re.DOTALL)),
             ("edges", re.compile(r"^SELECT \?s \?r \?x \?n")),
             ("names", re.compile(r"^SELECT \?s \?n")))

    def __init__(self, store: GraphStore) -> None:
        self.kinds: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()
        for method in ("_select_rows", "_select"):
            setattr(store, method, self._timed(getattr(store, method)))

    @classmethod
    def kind(cls, query: str) -> str:
        return next((name for name, pattern in cls.KINDS if pattern.search(query)), "other")

    def _timed(self, select):
        def timed(query: str):
            started = time.perf_counter()
            result = select(query)
            rows = result[1] if isinstance(result, tuple) else result  # (variables, rows) or rows
            with self._lock:
                kind = self.kinds.setdefault(self.kind(query), {"queries": 0, "seconds": 0.0, "rows": 0})
                kind["queries"] += 1
                kind["seconds"] += time.perf_counter() - started
                kind["rows"] += len(rows)
            return result
        return timed

    def report(self) -> dict[str, dict[str, float]]:
        return {k: {**v, "seconds": round(v["seconds"], 2)} for k, v in sorted(self.kinds.items(), key=lambda kv: -kv[1]["seconds"])}


def measure(size: int, store_dir: Path, data_dir: Path, topics: int, depth: int, seed: int,
            shared_cache: bool = False, backend: str = "oxigraph", query_kinds: bool = False,
            pages: str = "as-found") -> dict:
    with loaded_store(backend, size, store_dir, data_dir) as (url, loaded):
        return {"facts": size, "backend": backend, "cache": "shared" if shared_cache else "per topic", **loaded,
                "topics": topics, "depth": depth, "pages": pages,
                **walk_topics(url, size, topics, depth, seed, shared_cache, query_kinds, pages)}


@contextmanager
def loaded_store(backend: str, size: int, store_dir: Path, data_dir: Path) -> Iterator[tuple[str, dict]]:
    """The store URL holding the synthetic KG of `size` facts, loaded through the backend's
    bulk path unless an earlier run left it loaded, and the load's figures."""
    if backend == "oxigraph":
        folder = store_dir / f"synthetic-{size}"
        loaded: dict = {"load_reused": True}
        if not folder.exists():
            path = cached_synthetic_kg(data_dir, size)
            loading = folder.with_name(folder.name + ".loading")  # a load cut short is never reused
            shutil.rmtree(loading, ignore_errors=True)
            with open_store(f"oxigraph:{loading}") as store:
                started = time.perf_counter()
                load_file(store, "freebase-nt", path)
                seconds = time.perf_counter() - started
            loading.rename(folder)
            loaded = {"load_reused": False, "load_seconds": round(seconds, 1), "load_facts_per_s": round(size / seconds)}
        yield f"oxigraph:{folder}", loaded
        return
    if backend != "virtuoso":
        raise SystemExit(f"unknown backend {backend!r}: oxigraph or virtuoso")
    from tests.servers.virtuoso import VirtuosoServer

    if not VirtuosoServer.available():
        raise SystemExit("Virtuoso is not installed here (virtuoso-t)")
    workdir = store_dir / f"virtuoso-{size}"
    done = workdir / "loaded"  # written once the bulk load and its checkpoint are over
    path = cached_synthetic_kg(data_dir, size)
    with VirtuosoServer(workdir, dirs_allowed=[workdir]) as server:
        loaded = {"load_reused": True}
        if not done.exists():
            export = workdir / "export"
            shutil.rmtree(export, ignore_errors=True)
            started = time.perf_counter()
            export_bulk("freebase-nt", path, export, "virtuoso", DEFAULT_SCHEMA_PREFIXES)  # `kgqa export --target virtuoso`
            exported = time.perf_counter()
            server.bulk_load_dir(export, "kgqa-*.nt.gz", graph=GRAPH)
            seconds = time.perf_counter() - exported
            done.touch()
            loaded = {"load_reused": False, "export_seconds": round(exported - started, 1),
                      "load_seconds": round(seconds, 1), "load_facts_per_s": round(size / seconds)}
        # `kgqa store settle`, as the export's printed steps say (a store loaded or settled
        # by earlier code is settled once): the counts of the big entities' facts, and which
        # relations reach an entity twice
        with open_store(f"sparql+http://{server.user}:{server.password}@127.0.0.1:{server.http_port}/sparql"
                        f"?graph={GRAPH}&update=/sparql-auth") as store:
            if not store._fact_counts_over() or not store._reached_twice_noted()[0]:  # type: ignore[attr-defined]
                started = time.perf_counter()
                store.after_load()
                loaded["settle_seconds"] = round(time.perf_counter() - started, 1)
        yield f"sparql+http://127.0.0.1:{server.http_port}/sparql?graph={GRAPH}", loaded


def drop_page_cache() -> None:
    """Write out dirty pages and drop the OS page cache, so that the walks read the store
    from disk; a clear error where this process may not (not Linux, not root)."""
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("1\n")
    except OSError as exc:
        raise SystemExit(f"--pages cold needs Linux and root to drop the page cache: {exc}") from exc


def walk(neighbours, entity: int, depth: int, config: PoGConfig) -> None:
    """Phase 1's walk from one topic, its beam keeping the first groups in the store's order."""
    explore(neighbours, [f"m.0{entity:x}"], depth=depth, max_frontier=config.max_frontier,
            beam=lambda groups, _names: groups[:config.explore_beam])


def walk_topics(url: str, size: int, topics: int, depth: int, seed: int, shared_cache: bool,
                query_kinds: bool = False, pages: str = "as-found") -> dict:
    config = PoGConfig()
    chosen = random.Random(seed).sample(range(named_entities(size)), topics)
    walks = []
    # A name index the store lacks is made now (a search makes it), not in a walk's time; the
    # store is opened again after it, so that `cold` finds nothing of it in this process either.
    with open_store(url, read_only=True) as store:
        store.search_entities("entity")
    if pages == "cold":
        drop_page_cache()
    with open_store(url, read_only=True) as store:
        if pages == "warm":  # the same walks once, untimed: the OS then holds the pages they read
            for entity in chosen:
                walk(config.neighbour_cache(store), entity, depth, config)
            store.forget_entities()
        # Only when asked: the plain walks' store time carries no per-query bookkeeping.
        kinds = SparqlQueryKinds(store) if query_kinds and hasattr(store, "_select_values") else None
        timed = TimedStore(store)
        shared = config.neighbour_cache(timed)  # type: ignore[arg-type]
        for entity in chosen:
            before = (timed.seconds, timed.calls, timed.rows)
            if not shared_cache:  # a question's first reads: nothing of an earlier topic's remembered
                store.forget_entities()
            walk(shared if shared_cache else config.neighbour_cache(timed), entity, depth, config)  # type: ignore[arg-type]
            walks.append(((timed.seconds - before[0]) * 1000, timed.calls - before[1], timed.rows - before[2]))
    ms = [w[0] for w in walks]
    return {"store_ms_p50": round(statistics.median(ms), 1), "store_ms_p95": round(percentile(ms, 0.95), 1),
            "store_ms_max": round(max(ms), 1), "calls_avg": round(statistics.fmean(w[1] for w in walks), 1),
            "rows_avg": round(statistics.fmean(w[2] for w in walks)), "rows_max": max(w[2] for w in walks),
            "hub_cap": config.limit_per_entity, "max_frontier": config.max_frontier, "beam": config.explore_beam,
            **({"query_kinds": kinds.report()} if kinds else {})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,5000000", help="comma list of sizes in facts")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    scratch = Path(tempfile.gettempdir()) / "kgqa-bench-data"
    parser.add_argument("--store-dir", type=Path, default=scratch, help="where the loaded stores are kept and reused")
    parser.add_argument("--data-dir", type=Path, default=scratch, help="where the synthetic KGs are written once")
    parser.add_argument("--shared-cache", action="store_true", help="one neighbour cache for all topics, as an eval")
    parser.add_argument("--backend", default="oxigraph", choices=("oxigraph", "virtuoso"))
    parser.add_argument("--query-kinds", action="store_true", help="on Virtuoso, time each query by its kind: "
                        "query_kinds in each size's line, and a line per kind after it")
    parser.add_argument("--pages", default="as-found", choices=("as-found", "cold", "warm"),
                        help="cold: drop the OS page cache first (Linux, root); warm: walk the topics once, "
                        "untimed, first; as-found: read the store as an earlier run left it")
    parser.add_argument("--json", action="store_true", help="JSON lines (the only output format)")
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",") if s):
        measured = measure(size, args.store_dir, args.data_dir, args.topics, args.depth, args.seed,
                           args.shared_cache, args.backend, args.query_kinds, args.pages)
        for line in [measured, *kind_lines(measured)]:
            print(json.dumps(line), flush=True)


def kind_lines(measured: dict) -> list[dict]:
    """A size's SPARQL query kinds, one line each, a topic's share: queries, seconds, rows."""
    topics = measured["topics"]
    return [{"facts": measured["facts"], "backend": measured["backend"], "cache": measured["cache"],
             "query_kind": kind, "queries_a_topic": round(k["queries"] / topics, 1),
             "ms_a_topic": round(1000 * k["seconds"] / topics, 1), "ms_a_query": round(1000 * k["seconds"] / k["queries"], 2),
             "rows_a_topic": round(k["rows"] / topics), "rows_a_query": round(k["rows"] / k["queries"])}
            for kind, k in measured.get("query_kinds", {}).items()]


if __name__ == "__main__":
    main()
