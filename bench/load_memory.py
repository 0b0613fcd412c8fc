"""Loader memory stays flat as inputs grow: synthetic Freebase-shaped N-Triples of
growing size (bench/synthetic_kg.py) are loaded by `kgqa load` in a child process, and its
peak RSS is read.

    python bench/load_memory.py --json [--sizes 200000,1000000,3000000] [--mode load|export]

Prints one JSON object per size (in facts; names come on top):
{"mode", "facts", "lines", "peak_rss_mb", "seconds", "lines_per_s"}.
`load` goes into an embedded Oxigraph store, whose RocksDB keeps some per-file index
memory that grows slowly with the data; `export` writes Virtuoso bulk-load files and
shows the loader on its own. Bounded memory means peak RSS does not grow with `lines`.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.synthetic_kg import write_synthetic_kg


def peak_rss_of(command: list[str]) -> tuple[float, float]:
    """(peak resident MB, seconds) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest child so far: run sizes in increasing order.
    return max(peak, before) / 1024, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200000,1000000,3000000")
    parser.add_argument("--mode", choices=("load", "export"), default="load")
    parser.add_argument("--json", action="store_true", help="JSON lines (the only output format)")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    with tempfile.TemporaryDirectory(prefix="kgqa-load-memory-") as tmp:
        for facts in sizes:
            data = Path(tmp) / f"synthetic-{facts}.nt.gz"
            written = write_synthetic_kg(data, facts)
            lines = written["facts"] + written["names"]
            target = Path(tmp) / f"{args.mode}-{facts}"
            command = [sys.executable, "-m", "kgqa.cli", args.mode, "-f", "freebase-nt", str(data)]
            if args.mode == "load":
                command += ["--store", f"oxigraph:{target}", "--json"]
            else:
                command += ["--target", "virtuoso", "--out", str(target)]
            peak_mb, seconds = peak_rss_of(command)
            print(json.dumps({"mode": args.mode, "facts": facts, "lines": lines, "peak_rss_mb": round(peak_mb, 1),
                              "seconds": round(seconds, 1), "lines_per_s": round(lines / seconds)}), flush=True)
            data.unlink()


if __name__ == "__main__":
    main()
