"""detect.py RESULTS_DIR...: the questions whose eligible paths (`answer_from_paths`) the
rule can change, as JSON: where, among a trace's kept paths within the answer margin of the
best, one that the question's words explain whole is as deep as another that leaves a
relation word out (the rule before dropped only shallower ones).

Read from the kept paths of a full run's traces (`*-pog-nomem.jsonl` and `*-pog-synth.jsonl`,
one part a directory); the code that made them ranked a little otherwise than the code
measured, so the list is close to, not exactly, the questions whose answers can change."""

import json
import sys
from pathlib import Path

from agent.pog.scoring import explained

MARGIN = 0.05  # PoGConfig.answer_margin


def changes(kept: list[dict]) -> bool:
    best = kept[0]
    eligible = [c for c in kept if c["score"] >= best["score"] - MARGIN]
    deepest = max((c.get("depth", len(c["steps"])) for c in eligible if explained(c["score_parts"])), default=0)
    return any(c["score_parts"].get("missing") and c.get("depth", len(c["steps"])) == deepest for c in eligible)


found: dict[str, list[str]] = {}
for folder in map(Path, sys.argv[1:]):
    for path in sorted(folder.glob("*-pog-*.jsonl")):
        for line in path.open():
            row = json.loads(line)
            if not Path(row["trace"]).exists():  # a row kept from an older run whose traces are gone
                continue
            with open(row["trace"]) as trace:
                events = json.load(trace)["agent"]["events"]
            kept = [e["update"]["kept"] for e in events if (e.get("update") or {}).get("kept")]
            if kept and changes(kept[-1]):
                found.setdefault(f"{folder.name}/{path.name}", []).append(row["id"])
json.dump(found, sys.stdout, indent=1)
