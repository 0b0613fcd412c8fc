"""detect.py RESULTS_DIR...: the questions whose eligible paths (`answer_from_paths`) the
rule can change, as JSON (`bench/devkgs/detect/kept.py`; run with
`PYTHONPATH=bench/devkgs/detect:.`): where, among a trace's kept paths within the answer
margin of the best, one that the question's words explain whole is deeper than another
that leaves a relation word out, and the best is not explained (else the old rule already
drops it)."""

import json
import sys
from pathlib import Path

from kept import depth, listed, within_margin

from agent.pog.scoring import explained, outcomposed


def changes(kept: list[dict]) -> bool:
    if explained(kept[0]["score_parts"]):
        return False
    eligible = within_margin(kept)
    deepest = max((depth(c) for c in eligible if explained(c["score_parts"])), default=0)
    return any(outcomposed(c["score_parts"], depth(c), deepest) for c in eligible)


json.dump(listed(map(Path, sys.argv[1:]), changes), sys.stdout, indent=1)
