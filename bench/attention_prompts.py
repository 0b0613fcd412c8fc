"""How long the attention pass's prompts are on real questions, without running the pass.

    python bench/attention_prompts.py --json -- QUESTIONS_AND_EVAL_OPTIONS

Runs `kgqa eval` with the options given after `--` and the similarity coarse filter
(`--fi-filter --fi-coarse similarity` are added): it hands the coarse filter the same
candidate lists as `--fi-coarse attention` would, and costs no attention. Each list is
laid out as the attention prompt and counted with the embedded model's tokenizer. Prints
one JSON object: {"calls", "questions", "tokens_p50", "tokens_p90", "tokens_max",
"tokens_per_question", "paths_p50", "paths_max", "over": {budget: calls over it}}.
Example (PoG, the first 100 of the MetaQA 3-hop sample; S: the demo store,
oxigraph:~/.local/share/kgqa/demo-store; --out must be a new file, or the run resumes):

    python bench/attention_prompts.py --json -- --questions ../shared/data/metaqa/qa_dev_3hop.txt \\
        -f metaqa --store $S --pipeline pog --path-memory kgqa/data/metaqa_path_memory.jsonl.gz \\
        --sample 200 --seed 0 --limit 100 --out /tmp/prompts-3hop.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.llm.local import MODELS, assemble
from agent.optional_nodes import graphrag_fi
from kgqa.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen-0.5b", choices=sorted(MODELS))
    parser.add_argument("--json", action="store_true", help="JSON only (the default output)")
    parser.add_argument("eval_args", nargs=argparse.REMAINDER, help="after --: kgqa eval's options")
    args = parser.parse_args()
    eval_args = [a for a in args.eval_args if a != "--"]
    if not eval_args:
        parser.error("give kgqa eval's options after --")

    from transformers import AutoTokenizer

    weights = assemble(MODELS[args.model], Settings().data_dir / "models")
    tokenizer = AutoTokenizer.from_pretrained(str(weights.parent), gguf_file=weights.name)
    calls: list[tuple[str, int, int]] = []  # (question, paths, tokens)
    similarity = graphrag_fi.SimilarityPathScorer.scores

    def counting(self, question, paths, plain=None):  # wraps SimilarityPathScorer.scores
        prompt, _ = graphrag_fi.rog_prompt(question, paths)
        calls.append((question, len(paths), len(tokenizer(prompt)["input_ids"])))
        return similarity(self, question, paths, plain)

    graphrag_fi.SimilarityPathScorer.scores = counting
    from kgqa.cli import main as kgqa

    sys.argv = ["kgqa", "eval", *eval_args, "--fi-filter", "--fi-coarse", "similarity", "--json"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        kgqa()
    if not calls:
        raise SystemExit("no coarse-filter call was made: check the eval options")
    tokens = sorted(t for _, _, t in calls)
    paths = sorted(p for _, p, _ in calls)
    questions = len({q for q, _, _ in calls})
    print(json.dumps({
        "calls": len(calls), "questions": questions, "tokens_p50": int(statistics.median(tokens)),
        "tokens_p90": tokens[int(len(tokens) * 0.9)], "tokens_max": tokens[-1],
        "tokens_per_question": round(sum(tokens) / questions), "paths_p50": int(statistics.median(paths)),
        "paths_max": paths[-1], "over": {n: sum(t > n for t in tokens) for n in (2048, 4096, 8192)}}))


if __name__ == "__main__":
    main()
