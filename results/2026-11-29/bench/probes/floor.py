"""usage: STORES=DIR python floor.py SIZE  (the store bench/pog_scale.py loaded and settled)

The server's share of each topic's walk: every query a topic's walk sent, replayed alone
on one kept-open connection after the walks (so each is compiled already: no planning), and
again with its text changed (planned afresh); the reply read but not parsed."""
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from agent.pog.config import PoGConfig
from bench.non_model_seconds import percentile
from bench.pog_scale import GRAPH, walk
from bench.synthetic_kg import named_entities
from kg_store import open_store
from tests.servers.virtuoso import VirtuosoServer

size = int(sys.argv[1])
workdir = Path(os.environ.get('STORES', '/work/scale')) / f'virtuoso-{size}'  # bench/pog_scale.py --store-dir
config = PoGConfig()
chosen = random.Random(0).sample(range(named_entities(size)), 100)
with VirtuosoServer(workdir, dirs_allowed=[workdir]) as server:
    url = f"sparql+http://127.0.0.1:{server.http_port}/sparql?graph={GRAPH}"
    with open_store(url, read_only=True) as s:
        for e in chosen:  # warm: the pages, and every reached-twice judgement made
            s.forget_entities(); walk(config.neighbour_cache(s), e, 3, config)
        orig = s._reader.post
        sent, walls = [], []
        for e in chosen:
            mine = []
            s._reader.post = lambda q, a='application/sparql-results+json', mine=mine: (mine.append((q, a)), orig(q, a))[1]
            t = time.perf_counter()
            s.forget_entities(); walk(config.neighbour_cache(s), e, 3, config)
            walls.append((time.perf_counter() - t) * 1000)
            sent.append(mine)
        s._reader.post = orig
        def replay(queries, changed):
            t = time.perf_counter()
            for i, (q, a) in enumerate(queries):
                orig(q + (f" # {random.random()}\n" if changed else ""), a)
            return (time.perf_counter() - t) * 1000
        same = [replay(q, False) for q in sent]
        fresh = [replay(q, True) for q in sent]
        row = lambda ms: {"p50": round(statistics.median(ms), 1), "p95": round(percentile(ms, 0.95), 1), "max": round(max(ms), 1)}
        print(json.dumps({"facts": size, "walk_ms": row(walls), "queries_a_topic": round(statistics.fmean(len(q) for q in sent), 1),
                          "replayed_compiled_ms": row(same), "replayed_planned_afresh_ms": row(fresh)}))
