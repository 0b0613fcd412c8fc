import json
import sys
import time

HERE = __import__('pathlib').Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3])); sys.path.insert(0, str(HERE))
from pathlib import Path

import labvariants as LV

from bench.pog_scale import GRAPH
from kg_store import open_store
from tests.servers.virtuoso import VirtuosoServer

size = 20000000
qs = [json.loads(l) for l in __import__('gzip').open(HERE / f'queries-{size}.jsonl.gz', 'rt')]
targets = [q['q'] for q in qs if q['kind'] == 'pair edges' and q['rows'] > 300]
workdir = Path(__import__('os').environ.get('STORES', '/work/scale')) / f'virtuoso-{size}'  # bench/pog_scale.py --store-dir
order = sys.argv[1]
def t(s, q):
    t0 = time.perf_counter(); n = len(s._select_rows(q)[1]); return round((time.perf_counter() - t0) * 1000, 1), n
with VirtuosoServer(workdir, dirs_allowed=[workdir]) as server:
    s = open_store(f"sparql+http://127.0.0.1:{server.http_port}/sparql?graph={GRAPH}")
    s._select_rows("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")
    for q in targets[:6]:
        forms = {"as is": q, "by entity": LV.pair_by_entity(q)}
        names = ["as is", "by entity"] if order == "asis-first" else ["by entity", "as is"]
        print({n: [t(s, forms[n]), t(s, forms[n])] for n in names})
