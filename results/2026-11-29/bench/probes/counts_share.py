"""How many triples a settled store's fact counts add: each predicate's count against the
store's facts, on the synthetic KGs bench/pog_scale.py loaded and settled (STORES: its --store-dir).

    STORES=DIR python results/2026-11-29/bench/probes/counts_share.py 1000000 5000000 > counts-share.jsonl
"""
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
from bench.pog_scale import GRAPH
from kg_store import open_store
from kg_store.ids import FACTS_IN_BY_IRI, FACTS_IN_IRI, FACTS_OUT_BY_IRI, FACTS_OUT_IRI
from tests.servers.virtuoso import VirtuosoServer

for size in map(int, sys.argv[1:]):
    workdir = Path(os.environ.get("STORES", "/work/scale")) / f"virtuoso-{size}"
    with VirtuosoServer(workdir, dirs_allowed=[workdir]) as server:
        store = open_store(f"sparql+http://127.0.0.1:{server.http_port}/sparql?graph={GRAPH}")
        counts = {p.rsplit(":", 1)[1]: int(store._select_values(f"SELECT (COUNT(*) AS ?c) WHERE {{ ?s <{p}> ?o }}")[0]["c"])
                  for p in (FACTS_OUT_IRI, FACTS_IN_IRI, FACTS_OUT_BY_IRI, FACTS_IN_BY_IRI)}
        triples = store.stats().triples
        print(json.dumps({"facts": size, "store_triples": triples, **counts,
                          "share": round(sum(counts.values()) / triples, 4)}), flush=True)
