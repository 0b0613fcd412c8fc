"""Retrievers without an LLM: how often the selected triples hold an answer, and a path to it.

    python bench/retrievers.py --json --questions FILE -f FORMAT --store URL [--scout-model model.pt]
                               [--sample 200 --seed 0] [--ks 30,50,100]

For each question (full denominator: a question whose subgraph lacks the answer counts as
a miss): the 2-hop subgraph of its topic entities, the 1,000 triples closest to it by
cosine (KG-Scout's pre-filter), and from those the top k of each retriever:
  cosine          the cosine ranking itself
  cosine+pooling  path pooling over the 1,000 (Dijkstra, mean), the best k by pooled score
  kg-scout        the policy's top k (when --scout-model is given)
Prints one JSON object per (retriever, k): {"data", "retriever", "k", "answer_present",
"path_exists", "questions", "ms_per_question"}. "answer present": a gold answer is the head
or tail of a selected triple; "path exists": the selected triples connect a topic entity
to a gold answer (edges in either direction). Gold answers are read only here, to score.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.answer_text import normalize
from agent.embeddings import Embedder
from agent.optional_nodes.kg_scout.features import candidates_for
from agent.optional_nodes.kg_scout.reward import shortest_paths
from agent.optional_nodes.path_pooling import pool_scores
from kg_store import open_store
from loaders.questions import read_questions, select


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("-f", "--format", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--scout-model", type=Path)
    parser.add_argument("--sample", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ks", default="30,50,100")
    parser.add_argument("--device", default="cpu", help="Embedding device: cpu or cuda.")
    parser.add_argument("--json", action="store_true", help="JSON lines only (the default output).")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    question_set = read_questions(args.questions, args.format)
    questions = select(question_set, sample=args.sample, seed=args.seed)
    embedder = Embedder(Path.home() / ".local/share/kgqa/cache/embeddings.sqlite", device=args.device)
    scout = None
    if args.scout_model:
        import torch

        from agent.optional_nodes.kg_scout.training import load_checkpoint

        scout, _ = load_checkpoint(args.scout_model)
    hits: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
    seconds: dict[str, float] = defaultdict(float)
    with open_store(args.store, read_only=True) as store:
        for question in questions:
            topics = [t.id for t in question.topic_entities]
            subgraph = store.subgraph(topics, hops=2, max_degree=200, max_edges=5_000)
            started = time.perf_counter()
            candidates = candidates_for(question.text, subgraph.triples, subgraph.names, topics, embedder)
            seconds["cosine"] += time.perf_counter() - started
            wanted = {normalize(a) for a in question_set.gold[question.id].answers}
            answers = {e for t in candidates.triples for e in (t.head, t.tail)
                       if normalize(subgraph.names.get(e) or "") in wanted}
            rankings = {"cosine": list(range(len(candidates)))}
            started = time.perf_counter()
            pooled = pool_scores(candidates.triples, [(1 + float(c)) / 2 for c in candidates.cosine], topics)
            rankings["cosine+pooling"] = sorted(range(len(candidates)), key=lambda i: -pooled[i])
            seconds["cosine+pooling"] += time.perf_counter() - started
            if scout is not None and len(candidates):
                started = time.perf_counter()
                with torch.no_grad():
                    scores = scout(*candidates.tensors())
                rankings["kg-scout"] = torch.argsort(scores, descending=True).tolist()
                seconds["kg-scout"] += time.perf_counter() - started
            elif scout is not None:
                rankings["kg-scout"] = []
            for name, ranking in rankings.items():
                for k in ks:
                    selected = [candidates.triples[i] for i in ranking[:k]]
                    entities = {e for t in selected for e in (t.head, t.tail)}
                    present = bool(answers & entities)
                    connected = present and bool(shortest_paths(selected, topics, answers, limit=1))
                    hits[(name, k)][0] += present
                    hits[(name, k)][1] += connected
    for (name, k), (present, connected) in sorted(hits.items()):
        print(json.dumps({"data": args.questions.name, "retriever": name, "k": k,
                          "answer_present": round(present / len(questions), 4),
                          "path_exists": round(connected / len(questions), 4), "questions": len(questions),
                          "ms_per_question": round(1000 * seconds[name] / len(questions), 2)}), flush=True)


if __name__ == "__main__":
    main()
