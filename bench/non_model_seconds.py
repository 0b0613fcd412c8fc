"""A question's own work, not the model's: the seconds each question of a results file
spent outside the language model, and where they went.

    python bench/non_model_seconds.py --json LABEL=RESULTS.jsonl[.gz] ... [--base LABEL]

Reads results files that `kgqa eval` (or `bench/devkgs/evaluate.py`) wrote, with their
traces when they are beside them. A question's non-model seconds are its seconds less the
seconds its model requests took (`llm_seconds`; a reply from the reply cache counts its
lookup). Run the evaluation twice and read the second: with every reply cached, the model
costs nothing and a rerun of the same code asks the same prompts, so a change in these
seconds is the agent's own work, and `llm_cache_hits == llm_calls` shows the prompts did
not change. Time it on an idle machine.

Prints one JSON line a file: {"label", "n", "hits1", "non_model_s_p50", "non_model_s_p95",
"non_model_s_max", "all_replies_cached", "slowest_node", "slowest_node_s_p95"} and, with
`--base`, for a run of the base's questions, "same_answers_as_base" (every question's
predictions the same as the base's).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
from collections import defaultdict
from pathlib import Path


def read_rows(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile: p95 of 30 questions is the second slowest."""
    ordered = sorted(values)
    return ordered[max(0, -(-int(share * 100) * len(ordered) // 100) - 1)]


def node_seconds(rows: list[dict]) -> dict[str, list[float]]:
    """Each PoG node's seconds a question, from the traces that were kept."""
    seconds: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        trace = Path(row["trace"]) if isinstance(row.get("trace"), str) else None
        if trace is None or not trace.is_file():
            continue
        per_node: dict[str, float] = defaultdict(float)
        for event in json.loads(trace.read_text())["agent"].get("events", []):
            per_node[event["node"]] += event["seconds"]
        for node, spent in per_node.items():
            seconds[node].append(spent)
    return seconds


def figures(label: str, rows: list[dict]) -> dict:
    outside = [row["seconds"] - row["llm_seconds"] for row in rows]
    line = {"label": label, "n": len(rows), "hits1": round(statistics.fmean(r["hits1"] for r in rows), 3),
            "non_model_s_p50": round(statistics.median(outside), 3),
            "non_model_s_p95": round(percentile(outside, 0.95), 3), "non_model_s_max": round(max(outside), 3),
            "all_replies_cached": all(r["llm_cache_hits"] == r["llm_calls"] for r in rows)}
    nodes = node_seconds(rows)
    if nodes:
        slowest = max(nodes, key=lambda node: sum(nodes[node]))
        line |= {"slowest_node": slowest, "slowest_node_s_p95": round(percentile(nodes[slowest], 0.95), 3)}
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="LABEL=RESULTS: a results file and the label it is printed with")
    parser.add_argument("--base", help="The label of the run whose answers the runs of the same questions are "
                        "checked against")
    parser.add_argument("--json", action="store_true", help="JSON lines (the only output format)")
    args = parser.parse_args()
    runs = {}
    for spec in args.runs:
        label, _, path = spec.partition("=")
        if not path:
            parser.error(f"{spec!r}: give LABEL=RESULTS")
        runs[label] = read_rows(Path(path))
    if args.base is not None and args.base not in runs:
        parser.error(f"--base {args.base!r} names no run")
    answers = {label: {r["id"]: r["prediction"] for r in rows} for label, rows in runs.items()}
    for label, rows in runs.items():
        line = figures(label, rows)
        if args.base is not None and label != args.base and answers[label].keys() == answers[args.base].keys():
            line["same_answers_as_base"] = answers[label] == answers[args.base]
        print(json.dumps(line))


if __name__ == "__main__":
    main()
