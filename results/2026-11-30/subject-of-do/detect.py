"""detect.py RESULTS_DIR...: the questions whose own asked words the do-support reading of
`candidates.asked_words` changes, as JSON ({"<dir>/<results file>": [ids]}), read from a full
run's rows (`*-pog-nomem.jsonl`, every development set, one part a directory) and their
traces' masked questions. The question side needs no detection run: its words decide. The
memory side (a written question of a synthesised memory read anew) does: `rules.py` here."""

import json
import sys
from pathlib import Path

from rules import old_asked_words

from agent.pog.candidates import asked_words

found: dict[str, list[str]] = {}
for folder in map(Path, sys.argv[1:]):
    for path in sorted(folder.glob("*-pog-nomem.jsonl")):
        for line in path.open():
            row = json.loads(line)
            with open(row["trace"]) as trace:
                masked = json.load(trace)["agent"]["events"][0]["update"]["masked_question"]
            if old_asked_words(masked) != asked_words(masked):
                found.setdefault(f"{folder.name}/{path.name}", []).append(row["id"])
json.dump(found, sys.stdout, indent=1)
