import json
import random
import sys
import threading
import time

HERE = __import__('pathlib').Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
from pathlib import Path

from agent.pog.config import PoGConfig
from bench.pog_scale import GRAPH, SparqlQueryKinds
from bench.synthetic_kg import named_entities
from kg_store import open_store
from kg_store.paths import explore
from tests.servers.virtuoso import VirtuosoServer

size = int(sys.argv[1]); n = int(sys.argv[2])
workdir = Path(__import__('os').environ.get('STORES', '/work/scale')) / f'virtuoso-{size}'  # bench/pog_scale.py --store-dir
config = PoGConfig()
chosen = random.Random(0).sample(range(named_entities(size)), 100)
out = open(f'queries-{size}.jsonl', 'w')  # noqa: SIM115 (closed at exit; gzip it beside the probes)
with VirtuosoServer(workdir, dirs_allowed=[workdir]) as server:
    url = f"sparql+http://127.0.0.1:{server.http_port}/sparql?graph={GRAPH}"
    s = open_store(url, read_only=True)
    orig = s._select_rows
    lock = threading.Lock()
    def timed(q):
        t = time.perf_counter(); rows = orig(q); ms = (time.perf_counter() - t) * 1000
        start = round((t - T0) * 1000, 1)
        with lock: out.write(json.dumps({"topic": cur, "kind": SparqlQueryKinds.kind(q), "ms": round(ms, 2), "rows": len(rows[1]), "start": start, "thread": threading.current_thread().name, "q": q}) + "\n")
        return rows
    s._select_rows = timed
    T0 = time.perf_counter()
    for cur in range(n):
        e = chosen[cur]
        s.forget_entities()
        explore(config.neighbour_cache(s), [f"m.0{e:x}"], depth=3, max_frontier=config.max_frontier, beam=lambda g, _n: g[:config.explore_beam])
