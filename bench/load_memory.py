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
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def peak_rss_of(command: list[str]) -> tuple[float, float]:
    """(peak resident MB, seconds) of one child process, read from its own rusage. A forked
    child counts its parent's resident pages until it execs, so the parent must stay
    small: the data is written by a child of its own (`generate`)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if child.returncode:
        raise SystemExit(f"{' '.join(command)} exited with {child.returncode}")
    return usage.ru_maxrss / 1024, seconds


def generate(path: Path, facts: int) -> dict:
    """The synthetic KG, written by a child process (its memory never becomes ours)."""
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("synthetic_kg.py")), "--facts", str(facts),
                           "--out", str(path)], check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


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
            written = generate(data, facts)
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
