"""affected.py LOG RESULTS_DIR RUN [--listed]: the ids, per results file of RESULTS_DIR of the
run RUN (`*-pog-nomem.jsonl`), of the questions a detection run (`sitecustomize.py` here)
logged in LOG, as JSON; with `--listed`, as the [kg, kind, id] rows that
`results/2026-12-01/named-more-fully/rerun.py run` answers again.

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


def listed(found: dict[str, list[str]], run: str) -> list[list[str]]:
    """`affected`'s ids as [kg, kind, id] rows: a file is named `<kg>-<kind>-<run>.jsonl`."""
    sys.path.append(str(Path(__file__).resolve().parents[3]))  # the repository root, for `bench`
    from bench.devkgs.evaluate import SETS

    rows = []
    for name, ids in found.items():
        stem = name.removesuffix(f"-{run}.jsonl")
        kg = max((k for k in SETS if stem.startswith(f"{k}-")), key=len)  # "freebase-possessive" before "freebase"
        rows += [[kg, stem[len(kg) + 1:], i] for i in ids]
    return rows


if __name__ == "__main__":
    found = affected(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
    json.dump(listed(found, sys.argv[3]) if "--listed" in sys.argv[4:] else found, sys.stdout, indent=1)
