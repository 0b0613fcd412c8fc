"""The first answer on a fresh machine: `kgqa demo`'s wall time with an empty data folder.

    python bench/first_answer.py --json [--runs 3] [--question TEXT]

Each run starts `python -m kgqa demo --json` with KGQA_DATA_DIR set to a new empty folder,
as right after the install: the model's weights are joined from the package, the llama.cpp
server starts, the demo KG is loaded into a new embedded store, the embeddings and the
bundled path memory load, and the question is answered with no reply or embedding cache.
Time it on an idle machine: llama.cpp slows sharply when anything else takes a core.

Prints one JSON line a run: the wall seconds from the command's start to its exit, when
each start-up step had ended (seconds since the command's own clock started; the model
starts in the background, so steps overlap), the question's seconds, LLM calls and the
answers; then one line with the median wall seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="Fresh runs, each with its own empty data folder")
    parser.add_argument("--question", default=None, help="The question (default: the demo's own)")
    parser.add_argument("--json", action="store_true", help="JSON (the only output format)")
    args = parser.parse_args()

    walls = []
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="kgqa-fresh-") as data_dir:
            command = [sys.executable, "-m", "kgqa", "demo", "--json", *([args.question] if args.question else [])]
            started = time.monotonic()
            done = subprocess.run(command, env={**os.environ, "KGQA_DATA_DIR": data_dir}, capture_output=True,
                                  text=True, check=False)
            wall = time.monotonic() - started
        if done.returncode != 0:
            raise SystemExit(f"kgqa demo failed ({done.returncode}): {done.stderr[-2000:]}")
        answer = json.loads(done.stdout)
        walls.append(wall)
        ready = {f"{step.replace(' ', '_')}_ready_s": at for step, at in answer["startup_seconds"].items()}
        print(json.dumps({"run": run, "wall_seconds": round(wall, 2), **ready,
                          "question_seconds": answer["seconds"], "llm_calls": answer["llm_calls"],
                          "answers": answer["answers"][:5]}), flush=True)
    print(json.dumps({"runs": len(walls), "wall_seconds_median": round(statistics.median(walls), 2)}))


if __name__ == "__main__":
    main()
