"""PoG's cost against one retrieval call: seconds, model calls and tokens a question for the
PoG agent and the one-call `cosine-triples` pipeline, side by side on the same questions.

    python bench/pog_speed.py --json [--hops 1 2 3] [--sample 20] [--seed 0] [--store URL]
                              [--path-memory FILE] [--pipelines pog cosine-triples] [--out-dir DIR]
                              [--label TEXT]

Each pipeline answers the same MetaQA dev questions (`--sample` per hop, fixed seed, topic
entities given) through `kgqa eval`'s own runner, with no reply cache, on the demo store (or
`--store`) and the model the settings name (KGQA_* variables: the embedded model by default;
PoG's knobs from KGQA_POG__*, so a "before" run can set a knob back). The
server's own prompt-prefix cache stays on, as in every run. Time it on an idle machine:
llama.cpp slows sharply when anything else takes a core.

Prints one JSON object per pipeline and hop and for all hops:
{"label", "pipeline", "memory", "hops", "n", "hits1", "f1", "llm_calls_avg", "prompt_tokens_avg",
 "completion_tokens_avg", "seconds_p50", "seconds_mean", "llm_seconds_p50", ...}
then {"label", "pog_over_cosine_triples_p50": the ratio of the two pipelines' median seconds (when
both ran), "pog": the PoG knobs that differ from the defaults, "memory": the path memory's file
name or "none"}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.evaluation.run import EvalPlan, run_evaluation
from agent.pog.config import PoGConfig
from agent.settings import Settings
from kgqa import eval_browser as browser

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "metaqa"


def figures(rows: list[dict]) -> dict:
    """The run's summary as the evaluation browser computes it, with the mean seconds and
    the model's median seconds beside."""
    summary = {**browser.figures(rows), "seconds_mean": statistics.fmean(r["seconds"] for r in rows),
               "llm_seconds_p50": statistics.median(r["llm_seconds"] for r in rows)}
    return {key: round(value, 3) if isinstance(value, float) else value for key, value in summary.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hops", type=int, nargs="+", default=[1, 2, 3], choices=[1, 2, 3])
    parser.add_argument("--sample", type=int, default=20, help="Questions per hop.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--store", help="Store URL; default the demo store `kgqa demo` loads (the MetaQA KB).")
    parser.add_argument("--path-memory", type=Path, help="A path memory for PoG (say in reports whether it was "
                        "learnt from labelled questions); default none.")
    parser.add_argument("--pipelines", nargs="+", default=["pog", "cosine-triples"])
    parser.add_argument("--out-dir", type=Path, help="Keep each run's rows here (a rerun resumes); default a "
                        "temporary folder.")
    parser.add_argument("--label", default="", help="Names this run in the output (say, which commit).")
    parser.add_argument("--json", action="store_true", help="JSON lines only (the default prints them too).")
    args = parser.parse_args()

    base = Settings()
    base = base.model_copy(update={"store": args.store or base.demo_store_url})
    pog = base.pog.model_copy(update={"path_memory": args.path_memory}) if args.path_memory else base.pog
    settings = base.model_copy(update={"llm_cache": False, "pog": pog})
    memory = args.path_memory.name if args.path_memory else "none"
    run = {"label": args.label, "memory": memory}
    medians = {}
    with tempfile.TemporaryDirectory() as scratch:
        out_dir = args.out_dir or Path(scratch)
        out_dir.mkdir(parents=True, exist_ok=True)
        for pipeline in args.pipelines:
            every = []
            for hops in args.hops:
                plan = EvalPlan(questions=DATA / f"qa_dev_{hops}hop.txt", fmt="metaqa", pipeline=pipeline,
                                out_path=out_dir / f"{pipeline}-{hops}hop.jsonl", sample=args.sample,
                                seed=args.seed, traces=False)
                rows = run_evaluation(settings, plan).rows
                every += rows
                print(json.dumps({**run, "pipeline": pipeline, "hops": hops, **figures(rows)}), flush=True)
            summary = figures(every)
            medians[pipeline] = summary["seconds_p50"]
            print(json.dumps({**run, "pipeline": pipeline, "hops": "all", **summary}), flush=True)
    defaults = PoGConfig().model_dump(mode="json")
    knobs = {k: v for k, v in pog.model_dump(mode="json").items() if v != defaults[k]}
    ratio = {"pog_over_cosine_triples_p50": round(medians["pog"] / medians["cosine-triples"], 3)
             } if medians.get("cosine-triples") and "pog" in medians else {}  # only with both pipelines run
    print(json.dumps({"label": args.label, **ratio, "pog": knobs, "memory": memory}))


if __name__ == "__main__":
    main()
