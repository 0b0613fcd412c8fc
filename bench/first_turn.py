"""A chat's first answer, with and without the warm-up: while `kgqa chat` (or `serve`) waits
for its first question, the embedded model reads the fixed start of the prompts a question
sends (`llm_warm_up`), and the first question's requests then read only the rest.

    python bench/first_turn.py --json [--idle 10] [--memory bundled|none] [--question TEXT] [--runs 2]

Each run opens the chat's own session over the demo KG (loaded by `kgqa demo` first) with no
reply cache, waits `--idle` seconds as a user typing would, and times the first question
through the chat's context. `--memory none` leaves the bundled path memory out, so the
question's first request is the analysis prompt (instructions and examples) rather than
the answer prompt. Time it on an idle machine: llama.cpp slows sharply when anything else
takes a core.

Prints one JSON line per session: {"warm_up", "memory", "run", "seconds", "llm_calls",
"prompt_tokens", "completion_tokens", "answers"}; then {"memory", "warm_up_over_cold_median"}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.asking import answer_question
from kgqa.cli.chat import agent_session
from kgqa.settings import Settings

QUESTION = "Who directed the movies that Tom Hanks acted in?"


def first_turn(warm: bool, memory: str, idle: float, question: str) -> dict:
    settings = Settings(llm_cache=False, llm_warm_up=warm)
    demo = memory == "bundled"
    if not demo:  # the demo store, without the memory that --demo adds
        settings = settings.model_copy(update={"store": settings.demo_store_url})
    with agent_session(settings, demo=demo) as (_, context):
        time.sleep(idle)
        turn = answer_question(context.pog, question)
    return {key: turn[key] for key in ("seconds", "llm_calls", "prompt_tokens", "completion_tokens")} | {
        "answers": turn["answers"][:3]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=float, default=10.0, help="Seconds between the session's start and the question")
    parser.add_argument("--memory", choices=["bundled", "none"], default="bundled")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--runs", type=int, default=2, help="Sessions of each kind, alternating cold and warm")
    parser.add_argument("--json", action="store_true", help="JSON (the only output format)")
    args = parser.parse_args()

    seconds: dict[bool, list[float]] = {False: [], True: []}
    for run in range(1, args.runs + 1):
        for warm in (False, True):
            row = first_turn(warm, args.memory, args.idle, args.question)
            seconds[warm].append(row["seconds"])
            print(json.dumps({"warm_up": warm, "memory": args.memory, "run": run, **row}), flush=True)
    print(json.dumps({"memory": args.memory, "warm_up_over_cold_median": round(
        statistics.median(seconds[True]) / statistics.median(seconds[False]), 3)}))


if __name__ == "__main__":
    main()
