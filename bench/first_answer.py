"""The first answer on a fresh machine: `kgqa demo`'s wall time with an empty data folder.

    python bench/first_answer.py --json [--runs 3] [--question TEXT] [--base CHECKOUT] [--busy N]

Each run starts `python -m kgqa demo --json` with KGQA_DATA_DIR set to a new empty folder,
as right after the install: the model's weights are joined from the package, the llama.cpp
server starts, the demo KG is loaded into a new embedded store, the embeddings and the
bundled path memory load, and the question is answered with no reply or embedding cache.
Time it on an idle machine: llama.cpp slows sharply when anything else takes a core.

Prints one JSON line a run: the wall seconds from the command's start to its exit, when
the answer was printed (`answered_s`, before the model's server and the store close), when
each start-up step had ended (seconds since the command's own clock started; the model
starts in the background, so steps overlap), the question's seconds, LLM calls and the
answers; then one line with the medians of both.

With `--base` (another checkout of kgqa, e.g. a `git worktree` of an earlier commit) the
runs alternate between that checkout and this one, each line says which (`code`: the
commit), and a last line gives this one's medians over the base's, so a change is
measured side by side on the same machine at the same time.

With `--busy N`, N other processes each keep a core busy for the whole run (a machine
doing other work); each line then says `busy_cores`.
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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="Fresh runs, each with its own empty data folder")
    parser.add_argument("--question", default=None, help="The question (default: the demo's own)")
    parser.add_argument("--base", help="Another kgqa checkout to alternate with, side by side")
    parser.add_argument("--busy", type=int, default=0, help="Cores kept busy by other processes meanwhile")
    parser.add_argument("--json", action="store_true", help="JSON (the only output format)")
    args = parser.parse_args()

    here = Path(__file__).resolve().parents[1]
    checkouts = [Path(args.base).resolve(), here] if args.base else [here]
    codes = [commit(checkout) for checkout in checkouts]
    seconds: dict[str, list[tuple[float, float]]] = {code: [] for code in codes}  # (wall, answered)
    with busy_cores(args.busy):
        for run in range(1, args.runs + 1):
            for checkout, code in zip(checkouts, codes, strict=True):
                seconds[code].append(first_answer(checkout, args.question, run, code, args.busy))
    medians = {code: [statistics.median(column) for column in zip(*runs, strict=True)] for code, runs in seconds.items()}
    for code, (wall, answered) in medians.items():
        print(json.dumps({"code": code, "runs": len(seconds[code]), "wall_seconds_median": round(wall, 2),
                          "answered_s_median": round(answered, 2), **busy_field(args.busy)}))
    if args.base:
        base, this = codes
        print(json.dumps({"code": f"{this} / {base}",
                          "this_over_base_median": round(medians[this][0] / medians[base][0], 3),
                          "answered_this_over_base_median": round(medians[this][1] / medians[base][1], 3)}))


def commit(checkout: Path) -> str:
    """The checkout's commit, with "+" when its tracked files differ from it (results/ aside:
    the run's own output may be one of them)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True,
                          check=True).stdout.strip()
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", ".", ":!results"], cwd=checkout,
                           check=False).returncode != 0
    return head + ("+" if dirty else "")


@contextmanager
def busy_cores(count: int) -> Iterator[None]:
    """`count` processes that each keep a core busy until the block ends."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def busy_field(count: int) -> dict[str, int]:
    return {"busy_cores": count} if count else {}


def first_answer(checkout: Path, question: str | None, run: int, code: str, busy: int) -> tuple[float, float]:
    """One fresh `kgqa demo` of `checkout`'s code; prints its line and returns its wall
    seconds and the seconds until its answer was printed."""
    with tempfile.TemporaryDirectory(prefix="kgqa-fresh-") as data_dir:
        command = [sys.executable, "-m", "kgqa", "demo", "--json", *([question] if question else [])]
        started = time.monotonic()
        # Unbuffered, the answer reaches us when it is printed, before the process winds down.
        env = {**os.environ, "KGQA_DATA_DIR": data_dir, "PYTHONPATH": str(checkout), "PYTHONUNBUFFERED": "1"}
        with subprocess.Popen(command, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) as demo:
            answered_line = demo.stdout.readline()
            answered = time.monotonic() - started
            rest, errors = demo.communicate()
        wall = time.monotonic() - started
    if demo.returncode != 0:
        raise SystemExit(f"kgqa demo failed ({demo.returncode}): {errors[-2000:]}")
    answer = json.loads(answered_line + rest)
    ready = {f"{step.replace(' ', '_')}_ready_s": at for step, at in answer["startup_seconds"].items()}
    print(json.dumps({"code": code, "run": run, "wall_seconds": round(wall, 2), "answered_s": round(answered, 2),
                      **ready, "question_seconds": answer["seconds"], "llm_calls": answer["llm_calls"],
                      "answers": answer["answers"][:5], **busy_field(busy)}), flush=True)
    return wall, answered


if __name__ == "__main__":
    main()
