"""PoG's own cost: the time a question spends outside the language model (store reads,
embeddings, path grouping and ranking, the LangGraph run), per question.

    python bench/pog_overhead.py --json [--store URL] [--sample 100] [--seed 0] [--no-memory]

The whole PoG graph runs over MetaQA dev questions (`--sample` per hop, fixed seed) on
the embedded store with the bundled demo KG (loaded into a temporary store unless
--store is given) and the bundled path memory. The model is a stand-in that answers
instantly: the analysis gives no depth, the answer names the first entity at the end of
the first path listed. It never sees gold answers; it only makes each question take the
common two-call route, so what is timed is everything but generation. One context for the
whole run, as in `kgqa eval` (its neighbour cache warms as questions share entities).

Prints one JSON object per hop and one for all questions:
{"hops", "n", "non_llm_ms_p50", "non_llm_ms_p95", "non_llm_ms_mean", "llm_calls_avg", "store_reads"}
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent import PoGConfig, PoGContext, build_graph, run_question
from agent.embeddings import Embedder
from agent.llm import FakeLLM
from agent.pog.memory import PathMemory
from agent.pog.state import Entity
from kg_store import open_store
from loaders.load import load_file
from loaders.questions import read_metaqa

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "metaqa"
FIRST_PATH = re.compile(r"^Path 1: (.*)$", re.MULTILINE)


def instant_reply(messages: list[dict]) -> str:
    prompt = messages[-1]["content"]
    if prompt.startswith("Analyse the question"):
        return '{"topic_entities": [], "split_questions": [], "indicator": "", "depth": null}'
    path = FIRST_PATH.search(prompt)
    if not path:
        return "ans: unknown"
    last = path.group(1).rsplit(" -> ", 1)[-1].rsplit(" <- ", 1)[-1]
    return "ans: " + last.strip("{}").split(", ")[0].split(" (+")[0]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", help="A store holding the MetaQA KB; default: load the bundled one.")
    parser.add_argument("--sample", type=int, default=100, help="Questions per hop.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-memory", action="store_true", help="Run without the path memory.")
    parser.add_argument("--json", action="store_true", help="JSON lines only.")
    args = parser.parse_args()

    data = resources.files("kgqa") / "data"
    with tempfile.TemporaryDirectory() as scratch, resources.as_file(data / "metaqa_path_memory.jsonl.gz") as memory:
        url = args.store or f"oxigraph:{scratch}/store"
        with open_store(url) as store:
            if not args.store:
                with resources.as_file(data / "metaqa_kb.txt.gz") as kb:
                    load_file(store, "metaqa", kb)
            config = PoGConfig(path_memory=None if args.no_memory else memory)
            llm = FakeLLM(instant_reply)
            embedder = Embedder(Path(scratch) / "embeddings.sqlite")
            context = PoGContext(store, llm, embedder, config,
                                 memory=PathMemory.load(memory, embedder) if config.path_memory else None)
            graph = build_graph(config)
            rows = []
            for hops in (1, 2, 3):
                questions = read_metaqa(DATA / f"qa_dev_{hops}hop.txt").questions
                for question in random.Random(args.seed).sample(questions, args.sample):
                    calls = len(llm.calls)
                    started = time.perf_counter()
                    run_question(context, question.text, [Entity(id=t.id, name=t.name) for t in question.topic_entities],
                                 question_id=question.id, graph=graph)
                    rows.append((hops, (time.perf_counter() - started) * 1000, len(llm.calls) - calls))
            for hops in (1, 2, 3, "all"):
                mine = [r for r in rows if hops == "all" or r[0] == hops]
                ms = [r[1] for r in mine]
                print(json.dumps({"hops": hops, "n": len(mine), "non_llm_ms_p50": round(statistics.median(ms), 1),
                                  "non_llm_ms_p95": round(percentile(ms, 0.95), 1),
                                  "non_llm_ms_mean": round(statistics.fmean(ms), 1),
                                  "llm_calls_avg": round(statistics.fmean(r[2] for r in mine), 2),
                                  "store_reads": context.neighbours.store_reads, "memory": not args.no_memory}))


if __name__ == "__main__":
    main()
