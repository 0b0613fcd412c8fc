"""What `kgqa memory synthesize` costs on a store: a fresh run (no reply cache, a new
output file) in a child process, as a user would start it.

    python bench/synthesis.py --store oxigraph:$HOME/.local/share/kgqa/demo-store [--json]

Prints one JSON object: the command's own report (entries, paths per depth, LLM calls,
tokens, minutes) plus the wall-clock seconds of the whole process (model start and
store open included) and the machine's core count. The issue's targets: 10 minutes on
the MetaQA KB, 30 on the FB15k-237 subset, two cores, the embedded model. Time it on an
idle machine: llama.cpp slows sharply when anything else takes a core.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="Store URL, as for kgqa (oxigraph:PATH, bolt://..., sparql+http://...)")
    parser.add_argument("--max-depth", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="JSON (the only output format)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kgqa-synthesis-") as tmp:
        out_path = Path(tmp) / "memory.jsonl"
        command = [sys.executable, "-m", "kgqa.cli", "memory", "synthesize", "--store", args.store,
                   "--out", str(out_path), "--max-depth", str(args.max_depth), "--seed", str(args.seed), "--json"]
        start = time.perf_counter()
        done = subprocess.run(command, env={**os.environ, "KGQA_LLM_CACHE": "false"},
                              stdout=subprocess.PIPE, text=True, check=True)
        seconds = time.perf_counter() - start
    report = json.loads(done.stdout)
    report.pop("out", None)
    print(json.dumps({**report, "wall_seconds": round(seconds, 1), "cores": os.cpu_count()}))


if __name__ == "__main__":
    main()
