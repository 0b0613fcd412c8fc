"""Which of a run's misses the knowledge graph could have answered at all: a run's ceiling.

    python bench/misses.py --run R.jsonl.gz --questions Q -f FORMAT [--store URL] [--depth 3] [--json]

For each question the run missed (Hits@1 0, re-scored under today's metrics), the topic
entities' paths up to `--depth` hops are walked in the store (no hub cap), and the miss
counts as *unreachable* when no entity on them has a gold answer's name: the KB lacks the
fact, or holds it under another name (MetaQA's gold sets come from a different build of
its KB than kb.txt). No agent reads this; the gold answers are read here only to count.
Prints one JSON line: questions, Hits@1, misses, unreachable misses, and the ceiling
(the share of questions not unreachable), so a missed goal can be told apart from a
question no graph walk can answer; and the misses with a topic entity the store holds no
fact about (`topic_absent`: a constraint on that entity cannot be applied, as for CWQ's
second topics that the FB15k-237 subset lacks), whether or not they are reachable, how
many of all the questions have such a topic, and Hits@1 over the questions whose every
topic it holds (`hits1_topics_held`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agent.evaluation.harness import read_rows
from agent.evaluation.metrics import matches
from agent.evaluation.report import mean_of, rescored
from kg_store import open_store
from kg_store.paths import NeighborCache, explore
from loaders.questions import read_questions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True, type=Path, help="A results file (`kgqa eval --out`, gzipped or not)")
    parser.add_argument("--questions", required=True, type=Path, help="The questions file the run answered")
    parser.add_argument("-f", "--format", required=True, help="Its format, as for `kgqa eval -f`")
    parser.add_argument("--store", default=f"oxigraph:{Path.home()}/.local/share/kgqa/demo-store")
    parser.add_argument("--depth", type=int, default=3, help="Hops walked from the topic entities")
    parser.add_argument("--label", default=None, help="The row's label (default: the run file's name)")
    parser.add_argument("--json", action="store_true", help="JSON (the only output format)")
    args = parser.parse_args()

    rows = rescored(list(read_rows(args.run).values()))
    topics = {q.id: [t.id for t in q.topic_entities] for q in read_questions(args.questions, args.format).questions}
    store = open_store(args.store, read_only=True)
    neighbours = NeighborCache(store, limit_per_entity=None)
    missed = [row for row in rows if not row["hits1"]]
    unreachable = [row["id"] for row in missed if not _reaches_gold(neighbours, topics[row["id"]], row["gold"], args.depth)]
    degrees = store.degrees([t for row in rows for t in topics[row["id"]]])
    lacking = {row["id"] for row in rows if any(degrees[t] == 0 for t in topics[row["id"]])}
    topic_absent = [row["id"] for row in missed if row["id"] in lacking]
    held = [row for row in rows if row["id"] not in lacking]
    store.close()
    print(json.dumps({
        "run": args.label or args.run.name, "depth": args.depth, "questions": len(rows),
        "hits1": round(mean_of(rows, "hits1"), 3), "misses": len(missed),
        "unreachable": len(unreachable), "ceiling": round(1 - len(unreachable) / len(rows), 3),
        "unreachable_ids": unreachable, "questions_topic_absent": len(lacking), "topic_absent": len(topic_absent),
        "hits1_topics_held": round(mean_of(held, "hits1"), 3) if held else None,
        "topic_absent_ids": topic_absent}))


def _reaches_gold(neighbours: NeighborCache, seeds: list[str], gold: list[str], depth: int) -> bool:
    """Whether some entity within `depth` hops of the seeds (themselves excluded) is named
    as a gold answer is."""
    walked = explore(neighbours, seeds, depth=depth, max_frontier=1_000_000, max_groups=1_000_000)
    reached = {e for group in walked.groups for e in group.ends} - set(seeds)
    return any(matches(walked.names.get(e) or "", g) for e in reached for g in gold)


if __name__ == "__main__":
    main()
