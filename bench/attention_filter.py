"""GraphRAG-FI's attention pass (the coarse filter) on this machine: seconds by prompt length.

    python bench/attention_filter.py --json [--tokens 1000 2000 4000 8000 12000] [--repeats 1]

Loads the packaged GGUF into transformers on the CPU, as `--fi-coarse attention` does, and
times `AttentionPathScorer.scores` on prompts of about N tokens: made-up paths of the form
PoG prints (an entity, relations, a set of end entities), as many as fit N tokens. The
pass reads the whole prompt through the first `num_layers // 2 + 2` layers, so its time
grows with the prompt; the path text itself does not change the arithmetic. For scale:
PoG's attention prompts on the MetaQA 3-hop dev sample are ~7,100 tokens at the median and
up to 12,000 (the first 100 questions of `--sample 200 --seed 0`).

Prints one JSON object per length, then one for the build:
{"tokens", "paths", "seconds", "s_per_1k_tokens"} (median over the repeats) and
{"model", "torch", "threads", "load_s"}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.llm.local import MODELS, assemble
from agent.optional_nodes.graphrag_fi import AttentionPathScorer, paths_that_fit, rog_prompt
from kgqa.settings import Settings

QUESTION = "the films that share directors with the film Black Christmas were in which genres"


def made_up_paths(count: int) -> list[str]:
    return [f"Film {i} -> directed_by -> Director {i} -> directed_films -> Film {i + 1}, Film {i + 2}, "
            f"Film {i + 3} -> has_genre -> Drama, Horror, Comedy" for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen-0.5b", choices=sorted(MODELS))
    parser.add_argument("--tokens", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 12000])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="JSON lines only (the default output)")
    args = parser.parse_args()

    import torch

    weights = assemble(MODELS[args.model], Settings().data_dir / "models")
    started = time.perf_counter()
    scorer = AttentionPathScorer(weights.parent, weights.name)
    load_s = time.perf_counter() - started
    pool = made_up_paths(2_000)
    for budget in args.tokens:
        paths = pool[: paths_that_fit(scorer.count_tokens, QUESTION, pool, budget)]
        seconds = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            scorer.scores(QUESTION, paths)
            seconds.append(time.perf_counter() - started)
        tokens = scorer.count_tokens(rog_prompt(QUESTION, paths)[0])
        median = statistics.median(seconds)
        print(json.dumps({"tokens": tokens, "paths": len(paths), "seconds": round(median, 2),
                          "s_per_1k_tokens": round(median / tokens * 1000, 2)}), flush=True)
    print(json.dumps({"model": weights.name, "torch": torch.__version__, "threads": torch.get_num_threads(),
                      "load_s": round(load_s, 1)}))


if __name__ == "__main__":
    main()
