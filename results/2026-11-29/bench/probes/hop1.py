import random
import socket
import statistics
import sys
import time

HERE = __import__('pathlib').Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
from pathlib import Path

import kg_store.sparql as KS
from bench.pog_scale import GRAPH
from bench.synthetic_kg import named_entities
from kg_store import open_store
from tests.servers.virtuoso import VirtuosoServer

size = 1000000
workdir = Path(__import__('os').environ.get('STORES', '/work/scale')) / f'virtuoso-{size}'  # bench/pog_scale.py --store-dir
ids = [f"m.0{e:x}" for e in random.Random(1).sample(range(named_entities(size)), 300)]
orig = KS._ack_at_once
def nodelay_only(sock):
    if sock is not None: sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
with VirtuosoServer(workdir, dirs_allowed=[workdir]) as server:
    s = open_store(f"sparql+http://127.0.0.1:{server.http_port}/sparql?graph={GRAPH}")
    for e in ids: s.neighbors([e])
    res = {"quickack": [], "nodelay": [], "none": []}
    for i, e in enumerate(ids * 2):
        for mode in (("quickack", "nodelay", "none") if i % 2 else ("none", "nodelay", "quickack")):
            KS._ack_at_once = {"quickack": orig, "nodelay": nodelay_only, "none": lambda sock: None}[mode]
            t = time.perf_counter(); s.neighbors([e]); res[mode].append((time.perf_counter() - t) * 1000)
    for k, v in res.items(): print(k, round(statistics.median(v), 3), round(sorted(v)[int(len(v)*0.95)], 2), round(max(v), 1))
