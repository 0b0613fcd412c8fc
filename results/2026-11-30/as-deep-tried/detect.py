"""detect.py RESULTS_DIR...: the questions whose eligible paths (`answer_from_paths`) the
tried rule can change, as JSON (`bench/devkgs/detect/kept.py`; run with
`PYTHONPATH=bench/devkgs/detect:.`): where, among a trace's kept paths within the answer
margin of the best, one that the question's words explain whole is as deep as another that
leaves a relation word out (`../chain-within-margin/` drops only shallower ones)."""

import json
import sys
from pathlib import Path

from kept import depth, listed, within_margin

from agent.pog.scoring import explained


def changes(kept: list[dict]) -> bool:
    eligible = within_margin(kept)
    deepest = max((depth(c) for c in eligible if explained(c["score_parts"])), default=0)
    return any(c["score_parts"].get("missing") and depth(c) == deepest for c in eligible)


json.dump(listed(map(Path, sys.argv[1:]), changes), sys.stdout, indent=1)
