import json
import re
import sys
import time

HERE = __import__('pathlib').Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
from pathlib import Path

from bench.pog_scale import GRAPH
from kg_store import open_store
from tests.servers.virtuoso import VirtuosoServer

size = int(sys.argv[1])
qs = [json.loads(l) for l in __import__('gzip').open(HERE / f'queries-{size}.jsonl.gz', 'rt')]
qs = [q for q in qs if q['kind'] == 'other' and 'LIMIT 1' in q['q'] and '?a' in q['q']]
qs = sorted(qs, key=lambda d: -d['ms'])[:12]
workdir = Path(__import__('os').environ.get('STORES', '/work/scale')) / f'virtuoso-{size}'  # bench/pog_scale.py --store-dir
with VirtuosoServer(workdir, dirs_allowed=[workdir]) as server:
    s = open_store(f"sparql+http://127.0.0.1:{server.http_port}/sparql?graph={GRAPH}")
    for d in qs:
        q = d['q']
        forward = q.startswith("SELECT ?o")
        rel = re.search(r"\?s (<[^>]+>) \?o", q).group(1)
        sub = re.search(r"\{ \{ (SELECT DISTINCT .*? LIMIT \d+) \}", q).group(1)
        res = {}
        for name in ("as is", "two step"):
            ts = []
            for _ in range(2):
                t = time.perf_counter()
                if name == "as is":
                    r = bool(s._select_rows(q)[1])
                else:
                    ents = [row[0] for row in s._select_rows(sub)[1]]
                    vals = " ".join(f"<{e}>" for e in ents)
                    if forward:
                        q2 = f"SELECT ?o WHERE {{ VALUES ?o {{ {vals} }} ?a {rel} ?o . ?b {rel} ?o . FILTER(?a != ?b) }} LIMIT 1"
                    else:
                        q2 = f"SELECT ?s WHERE {{ VALUES ?s {{ {vals} }} ?s {rel} ?a . ?s {rel} ?b . FILTER(isIRI(?a) && isIRI(?b) && ?a != ?b) }} LIMIT 1"
                    r = bool(s._select_rows(q2)[1]) if ents else False
                ts.append(round((time.perf_counter() - t) * 1000, 1))
            res[name] = (ts, r)
        print(d['ms'], res)
