"""affected.py LOG RESULTS_DIR RUN: the ids, per results file of RESULTS_DIR of the run RUN
(`*-pog-nomem.jsonl`), of the questions a detection run (`sitecustomize.py` here) logged
in LOG, as JSON.

A log line is a masked, lower-cased question ("name the people whose packages require x");
a question is affected where its words, its topic's words standing for "x", match one."""

import json
import re
import sys
from pathlib import Path

from agent.pog.candidates import question_tokens


def patterns(log: Path) -> set[re.Pattern]:
    masked = {json.loads(line)["q"] for line in log.open()}
    return {re.compile("^" + " ".join(".+" if w == "x" else re.escape(w) for w in q.split()) + "$") for q in masked}


def affected(log: Path, results: Path, run: str) -> dict[str, list[str]]:
    found = patterns(log)
    out: dict[str, list[str]] = {}
    for path in sorted(results.glob(f"*-{run}.jsonl")):
        for line in path.open():
            row = json.loads(line)
            words = " ".join(question_tokens(row["question"].lower().replace("'s", " 's")))
            if any(p.match(words) for p in found):
                out.setdefault(path.name, []).append(row["id"])
    return out


if __name__ == "__main__":
    json.dump(affected(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]), sys.stdout, indent=1)
