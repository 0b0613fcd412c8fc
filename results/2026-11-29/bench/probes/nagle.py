import http.client
import json
import socket
import sys
import time
import urllib.parse

HERE = __import__('pathlib').Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
from pathlib import Path

from kg_store import sparql_text
from tests.servers.virtuoso import VirtuosoServer

size = 5000000
qs = [json.loads(l) for l in __import__('gzip').open(HERE / f'queries-{size}.jsonl.gz', 'rt')]
qs = sorted([q for q in qs if q['kind'] == 'pair edges'], key=lambda d: -d['ms'])[:6]
workdir = Path(__import__('os').environ.get('STORES', '/work/scale')) / f'virtuoso-{size}'  # bench/pog_scale.py --store-dir
with VirtuosoServer(workdir, dirs_allowed=[workdir]) as server:
    port = server.http_port
    def run(conn, body):
        t = time.perf_counter()
        conn.request("POST", "/sparql", body, {"Content-Type": "application/x-www-form-urlencoded", "Accept": "text/csv"})
        if getattr(conn, 'quick', False): conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        r = conn.getresponse(); data = r.read()
        return round((time.perf_counter() - t) * 1000, 1), r.getheader('Transfer-Encoding'), len(data)
    plain = http.client.HTTPConnection('127.0.0.1', port)
    nd = http.client.HTTPConnection('127.0.0.1', port); nd.connect(); nd.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    qa = http.client.HTTPConnection('127.0.0.1', port); qa.connect(); qa.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1); qa.quick = True
    for d in qs:
        body = urllib.parse.urlencode({"query": sparql_text.from_graph(d['q'], 'urn:kgqa:bench')}).encode()
        print('plain', [run(plain, body) for _ in range(3)])
        print('nodelay', [run(nd, body) for _ in range(3)])
        print('quickack', [run(qa, body) for _ in range(5)])
