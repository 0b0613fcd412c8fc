"""Path pooling's cost per query, by kernel search and input size, on real question subgraphs.

    python bench/path_pooling.py --json [--questions 50] [--sizes 25,50,100,200,500]

For each data set (MetaQA on the embedded demo KG; WebQSP dev on the FB15k-237 Freebase
subset, when ../shared/data is there) and each question of a fixed-seed sample: the
2-hop subgraph of the topic entities, its triples scored by embedding cosine to the
question ((1 + cos) / 2, the default triple scorer), the top N kept; then
`pool_scores` is timed for each search. Prints one JSON object per (data set, search, N):
{"data", "search", "triples", "ms_p50", "ms_p95", "questions"}; the paper's figures for
comparison are 1.6/2.1/3.2/6.3/18.1 ms (Dijkstra) and 232.2 ms (BFS at 500).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.embeddings import Embedder
from agent.optional_nodes.path_pooling import PoolingOptions, pool_scores
from agent.pipelines.facts import triple_text
from kg_store import GraphStore, open_store
from loaders.load import load_file
from loaders.questions import Question, read_metaqa, read_pog_json

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SEARCHES = ("dijkstra", "bfs", "random_walk")


def scored_subgraphs(store: GraphStore, questions: list[Question], embedder: Embedder, size: int):
    for question in questions:
        seeds = [t.id for t in question.topic_entities]
        subgraph = store.subgraph(seeds, hops=2, max_degree=200, max_edges=5_000)
        if len(subgraph.triples) < size:
            continue
        vectors = embedder.encode([question.text, *(triple_text(t, subgraph.names) for t in subgraph.triples)])
        cosine = vectors[1:] @ vectors[0]
        top = sorted(range(len(subgraph.triples)), key=lambda i: -cosine[i])[:size]
        yield seeds, [subgraph.triples[i] for i in top], [(1 + float(cosine[i])) / 2 for i in top]


def time_one(triples, scores, seeds, search: str) -> float:
    options = PoolingOptions(search=search)  # type: ignore[arg-type]
    started = time.perf_counter()
    pool_scores(triples, scores, seeds, options)
    return (time.perf_counter() - started) * 1000


def run(name: str, store: GraphStore, questions: list[Question], sizes: list[int], embedder: Embedder) -> None:
    for size in sizes:
        cases = list(scored_subgraphs(store, questions, embedder, size))
        for search in SEARCHES:
            if not cases:
                continue
            time_one(*cases[0][1:], cases[0][0], search)  # warm up
            ms = sorted(time_one(triples, scores, seeds, search) for seeds, triples, scores in cases)
            print(json.dumps({"data": name, "search": search, "triples": size, "ms_p50": round(statistics.median(ms), 3),
                              "ms_p95": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 3), "questions": len(ms)}),
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50, help="Questions sampled per data set (seed 0).")
    parser.add_argument("--sizes", default="25,50,100,200,500")
    parser.add_argument("--json", action="store_true", help="JSON lines only (the default output).")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    embedder = Embedder()
    with tempfile.TemporaryDirectory() as scratch:
        with open_store(f"oxigraph:{scratch}/metaqa") as store:
            with resources.as_file(resources.files("kgqa") / "data" / "metaqa_kb.txt.gz") as kb:
                load_file(store, "metaqa", kb)
            pool = [q for hops in (1, 2, 3) for q in read_metaqa(SHARED / "metaqa" / f"qa_dev_{hops}hop.txt").questions] \
                if (SHARED / "metaqa").is_dir() else []
            run("metaqa", store, random.Random(0).sample(pool, min(args.questions, len(pool))), sizes, embedder)
        freebase = SHARED / "freebase"
        if freebase.is_dir():
            with open_store(f"oxigraph:{scratch}/fb") as store:
                load_file(store, "freebase-nt", freebase / "fb15k237_freebase.nt.gz")
                pool = read_pog_json(freebase / "questions" / "webqsp_dev.json").questions
                run("webqsp-fb15k237", store, random.Random(0).sample(pool, min(args.questions, len(pool))), sizes,
                    embedder)


if __name__ == "__main__":
    main()
