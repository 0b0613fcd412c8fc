"""Which questions a rule that reads only the question's words can change: no detection run
(`sitecustomize.py` here) is needed for such a rule, only a full run's rows of every
development set (`*-pog-nomem.jsonl`, one part a directory) and their traces, which hold
each question as the agent read it, its topics masked. A results folder's `detect.py`
passes its test of the masked question (`results/2026-11-30/phrase-said-twice/`)."""

import json
from collections.abc import Callable, Iterable
from pathlib import Path


def listed(folders: Iterable[Path], changes: Callable[[str], bool]) -> dict[str, list[str]]:
    """{"<dir>/<results file>": ids} of the rows whose masked question `changes` holds for."""
    found: dict[str, list[str]] = {}
    for folder in folders:
        for path in sorted(folder.glob("*-pog-nomem.jsonl")):
            for line in path.open():
                row = json.loads(line)
                with open(row["trace"]) as trace:
                    masked = json.load(trace)["agent"]["events"][0]["update"]["masked_question"]
                if changes(masked):
                    found.setdefault(f"{folder.name}/{path.name}", []).append(row["id"])
    return found
