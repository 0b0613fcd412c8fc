"""Which questions a rule that reads a question's kept paths (`answer_from_paths`'s input)
can change, listed from a full run's traces: no detection run (`sitecustomize.py` here).
The code that made the traces may rank a little otherwise than the code measured, so the
list is close to, not exactly, the questions whose answers can change. A results folder's
`detect.py` passes its test of the last kept paths (`results/2026-11-30/chain-within-margin/`)."""

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from agent.pog.config import PoGConfig

MARGIN = PoGConfig().answer_margin  # the small preset's: the runs measured


def depth(path: dict) -> int:
    return path.get("depth", len(path["steps"]))


def within_margin(kept: list[dict]) -> list[dict]:
    """The kept paths (trace dicts, best first) within the answer margin of the best."""
    return [c for c in kept if c["score"] >= kept[0]["score"] - MARGIN]


def listed(folders: Iterable[Path], changes: Callable[[list[dict]], bool]) -> dict[str, list[str]]:
    """{"<dir>/<results file>": ids} of the rows (`*-pog-*.jsonl`) whose last kept paths
    `changes` holds for; rows whose trace is not on disk (kept from an older run) are skipped."""
    found: dict[str, list[str]] = {}
    for folder in folders:
        for path in sorted(folder.glob("*-pog-*.jsonl")):
            for line in path.open():
                row = json.loads(line)
                if not Path(row["trace"]).exists():
                    continue
                with open(row["trace"]) as trace:
                    events = json.load(trace)["agent"]["events"]
                kept = [e["update"]["kept"] for e in events if (e.get("update") or {}).get("kept")]
                if kept and changes(kept[-1]) and row["id"] not in found.get(f"{folder.name}/{path.name}", []):
                    found.setdefault(f"{folder.name}/{path.name}", []).append(row["id"])
    return found
