"""Entity linking from the question alone: how often the linker's first candidate is the
question's topic entity (accuracy@1), and how often it is among the first five (recall@5),
on dev questions whose given topics are withheld (MetaQA: the text without its brackets).

    python bench/linking.py --json --questions FILE -f FORMAT --store URL [--sample N] [--seed S] [--label L]

Prints one JSON line: {"data": L, "questions", "accuracy_at_1", "recall_at_5", "no_candidate",
"ms_p50", "ms_p95", "misses": [up to 20 examples]}. A question with several topic entities
counts as linked at 1 when the first candidate is any of them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.linking import link_question
from kg_store import open_store
from loaders.questions import read_questions, select


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("-f", "--format", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--sample", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--label", help="What the line calls these questions (default: the file's name).")
    parser.add_argument("--json", action="store_true", help="JSON lines only (the default output).")
    args = parser.parse_args()
    question_set = read_questions(args.questions, args.format)
    chosen = [q for q in select(question_set, sample=args.sample, seed=args.seed) if q.topic_entities]
    first = five = none = 0
    seconds, misses = [], []
    with open_store(args.store, read_only=True) as store:
        for question in chosen:
            gold = {t.id for t in question.topic_entities}
            started = time.perf_counter()
            links = link_question(store, question.text)
            seconds.append(time.perf_counter() - started)
            ids = [link.id for link in links]
            first += bool(ids) and ids[0] in gold
            five += bool(gold & set(ids[:5]))
            none += not ids
            if (not ids or ids[0] not in gold) and len(misses) < 20:
                misses.append({"question": question.text, "gold": sorted(gold),
                               "linked": [(link.id, link.span) for link in links[:3]]})
    n = len(chosen)
    ms = sorted(s * 1000 for s in seconds)
    print(json.dumps({"data": args.label or args.questions.name, "questions": n, "accuracy_at_1": round(first / n, 3), "recall_at_5": round(five / n, 3),
                      "no_candidate": none, "ms_p50": round(statistics.median(ms), 1),
                      "ms_p95": round(ms[int(0.95 * (n - 1))], 1), "misses": misses}))


if __name__ == "__main__":
    main()
