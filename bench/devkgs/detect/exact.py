"""exact.py RESULTS_DIR: per results file of a detection run (`sitecustomize.py` here),
how many rows are exact, every model reply of theirs read from the reply cache, and how
many of those are wrong, as JSON.

A row with a reply missing from the cache took the empty-reply route: its answer is not
what the code answers with the model, so it says nothing about a miss. The exact rows'
misses are the ones worth reading (of a tuning part only)."""

import json
import sys
from pathlib import Path


def exact_rows(results: Path) -> dict[str, dict[str, int]]:
    out = {}
    for path in sorted(results.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.open()]
        exact = [r for r in rows if r.get("llm_calls", 0) == r.get("llm_cache_hits", 0)]
        out[path.name] = {"rows": len(rows), "exact": len(exact), "exact_wrong": sum(r["hits1"] < 1 for r in exact)}
    return out


if __name__ == "__main__":
    print(json.dumps(exact_rows(Path(sys.argv[1])), indent=1))
