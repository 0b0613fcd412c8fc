"""Questions a minute for a batch evaluation with K questions in flight, against the
embedded model run as N copies (`llm_servers`), on the same questions for every setting.

    python bench/throughput.py --json [--settings 1x1 2x2 1x2 4x4] [--hops 2] [--sample 30]
                               [--pipeline pog] [--path-memory FILE] [--store URL]

A setting `NxK` starts N copies of the model (the cores shared among them) and runs
`kgqa eval`'s runner with K questions at once; no reply cache. The clock runs from the
first question's end to the last's, so start-up and the first question's warm-up are out.
Time it on an idle machine.

Prints one JSON object per setting:
{"servers", "concurrency", "threads_per_server", "spin_count", "n", "questions_per_minute", "hits1",
 "llm_calls_avg", "seconds_p50", "llm_seconds_p50", "speedup"}; speedup is over the first setting;
spin_count is the servers' OpenMP spin at a barrier (GOMP_SPINCOUNT, ours unless set).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.evaluation.run import EvalPlan, run_evaluation
from agent.llm.local import server_environment, server_threads
from agent.settings import Settings
from kgqa import eval_browser as browser

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "metaqa"


def parse_setting(text: str) -> tuple[int, int]:
    servers, _, concurrency = text.partition("x")
    if not (servers.isdigit() and concurrency.isdigit() and int(servers) >= 1 and int(concurrency) >= 1):
        raise argparse.ArgumentTypeError(f"a setting is NxK (servers x questions in flight), not {text!r}")
    return int(servers), int(concurrency)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--settings", type=parse_setting, nargs="+", default=[(1, 1), (2, 2), (1, 2), (4, 4)])
    parser.add_argument("--hops", type=int, default=2, choices=[1, 2, 3])
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pipeline", default="pog")
    parser.add_argument("--store", help="Store URL; default the demo store `kgqa demo` loads (the MetaQA KB).")
    parser.add_argument("--path-memory", type=Path, help="A path memory for PoG; default the settings' own.")
    parser.add_argument("--json", action="store_true", help="JSON lines only (the default prints them too).")
    args = parser.parse_args()

    base = Settings()
    pog = base.pog.model_copy(update={"path_memory": args.path_memory}) if args.path_memory else base.pog
    base = base.model_copy(update={"store": args.store or base.demo_store_url, "llm_cache": False, "pog": pog})
    first_rate = None
    for servers, concurrency in args.settings:
        ended: list[float] = []
        with tempfile.TemporaryDirectory() as scratch:
            plan = EvalPlan(questions=DATA / f"qa_dev_{args.hops}hop.txt", fmt="metaqa", pipeline=args.pipeline,
                            out_path=Path(scratch) / "run.jsonl", sample=args.sample, seed=args.seed,
                            concurrency=concurrency, traces=False)
            rows = run_evaluation(base.model_copy(update={"llm_servers": servers}), plan,
                                  on_row=lambda _row, ended=ended: ended.append(time.perf_counter())).rows
        rate = 60 * (len(ended) - 1) / (ended[-1] - ended[0])
        first_rate = first_rate or rate
        figures = browser.figures(rows)
        print(json.dumps({
            "servers": servers, "concurrency": concurrency, "threads_per_server": max(1, server_threads() // servers),
            "spin_count": server_environment(os.environ).get("GOMP_SPINCOUNT"),
            "hops": args.hops, "n": len(rows), "questions_per_minute": round(rate, 2),
            "hits1": round(figures["hits1"], 3), "llm_calls_avg": round(figures["llm_calls_avg"], 3),
            "seconds_p50": round(figures["seconds_p50"], 3),
            "llm_seconds_p50": round(statistics.median(r["llm_seconds"] for r in rows), 3),
            "speedup": round(rate / first_rate, 2),
        }), flush=True)


if __name__ == "__main__":
    main()
