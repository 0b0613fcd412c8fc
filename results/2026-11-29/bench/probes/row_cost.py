"""usage: STORES=DIR python row_cost.py SIZE  (the store bench/pog_scale.py loaded and settled)

Where a big read's server time goes: the two biggest (by reply) `edges` and `capped edges` reads of 20
topics' walks, each sent as it is, asked for a count of its rows only, and without the
neighbours' names; the first run (planned afresh) and the median of four more, ms."""
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from agent.pog.config import PoGConfig
from bench.pog_scale import GRAPH, SparqlQueryKinds, walk
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
        sent = []
        post = s._reader.post
        def recorded(query: str, accept: str = 'application/sparql-results+json') -> tuple[int, bytes]:
            status, body = post(query, accept)
            sent.append((query, len(body)))
            return status, body

        s._reader.post = recorded
        for e in chosen[:20]:
            s.forget_entities()
            walk(config.neighbour_cache(s), e, 3, config)
        s._reader.post = post

        def timed(query: str) -> tuple[float, float, int]:
            runs = []
            for _ in range(5):
                started = time.perf_counter()
                status, body = post(query, 'text/csv')
                runs.append((time.perf_counter() - started) * 1000)
                assert status == 200, body[:300]
            return runs[0], statistics.median(runs[1:]), len(body)

        for kind in ('edges', 'capped edges'):
            replies = sorted((size_, q) for q, size_ in sent if SparqlQueryKinds.kind(q) == kind)
            biggest = [q for _, q in replies[-2:]]
            for query in biggest:
                name = re.search(r'OPTIONAL \{ \?x <[^>]+> \?n [^}]*\}', query).group(0)
                variants = {'as is': query,
                            'count only': re.sub(r'^SELECT .*? WHERE', 'SELECT (COUNT(*) AS ?c) WHERE', query, count=1),
                            'no names': query.replace(name, '').replace('?n (', '(')}
                rows = len(post(query, 'text/csv')[1].splitlines()) - 1
                print(f"{kind}, {query.count('UNION') + 1} branches, {rows} rows")
                for label, text in variants.items():
                    first, median, size_ = timed(text)
                    print(f"   {label:11s} first {first:6.1f}  median {median:6.1f}  bytes {size_}")
