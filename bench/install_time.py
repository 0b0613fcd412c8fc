"""The README's install on a fresh venv, timed by its parts.

    python bench/install_time.py --json [--cmake-args ARGS] [--extras test,local-llm] [--label TEXT] [--speed]
    python bench/install_time.py --json --from-log PIP.log [--label TEXT]

Creates a new virtual environment and runs `pip install -e '.[EXTRAS]'` in it with no pip
cache and the README's `CMAKE_ARGS` (or `--cmake-args`), logging with timestamps
(`pip --log`); or reads such a log (`--from-log`). The parts are read off the log: resolving
and downloading (up to the first wheel built), building llama-cpp-python (the compile),
building the rest, and installing (unpacking every wheel into the venv). Time it on an idle
machine; the downloads depend on the network. `$PWD` in the CMAKE_ARGS is this checkout, as
where the README's command runs. `--speed` then times the model the new venv built
(`bench/llm_speed.py`, 512 prompt tokens), so that a faster install is seen to cost no speed.

Prints one JSON line: {"label", "total_s", "resolve_download_s", "llama_build_s",
"other_builds_s", "install_s", "cmake_args"}, with "prefill_tok_s" and "generate_tok_s" if --speed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import venv
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
README_CMAKE_ARGS = re.search(r'CMAKE_ARGS="([^"]+)"', (HERE / "README.md").read_text()).group(1)
STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d,\d{3}) (.*)$")


def parts(log: Path) -> dict[str, float]:
    """The install's parts, in seconds, from a `pip --log` file."""
    lines = []
    for line in log.read_text(errors="replace").splitlines():
        match = STAMP.match(line)
        if match:
            lines.append((datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S,%f"), match.group(2)))
    if not lines:
        raise SystemExit(f"{log}: no timestamped pip log lines")

    def first(pattern: str) -> datetime | None:
        return next((when for when, text in lines if re.search(pattern, text)), None)

    start, end = lines[0][0], lines[-1][0]
    builds_start = first(r"^\s*Building (wheel|editable) for ") or end
    llama_start = first(r"^\s*Building wheel for llama[-_]cpp[-_]python")
    llama_end = first(r"^\s*Building wheel for llama[-_]cpp[-_]python .*finished")
    # The venv's own install is not indented; a build environment's is.
    install_start = first(r"^Installing collected packages: ") or end
    llama = (llama_end - llama_start).total_seconds() if llama_start and llama_end else 0.0
    builds = (install_start - builds_start).total_seconds()
    return {"total_s": round((end - start).total_seconds(), 1),
            "resolve_download_s": round((builds_start - start).total_seconds(), 1),
            "llama_build_s": round(llama, 1), "other_builds_s": round(builds - llama, 1),
            "install_s": round((end - install_start).total_seconds(), 1)}


def install(extras: str, cmake_args: str, log: Path, speed: bool) -> dict[str, float]:
    """Install into a new venv; the model's speed there, if `speed`."""
    with tempfile.TemporaryDirectory(prefix="kgqa-install-") as folder:
        env_dir = Path(folder) / "venv"
        venv.create(env_dir, with_pip=True)
        environment = {**os.environ, "PIP_NO_CACHE_DIR": "1", "CMAKE_ARGS": cmake_args.replace("$PWD", str(HERE))}
        subprocess.run([str(env_dir / "bin" / "pip"), "install", "-q", "--progress-bar", "off", "--log", str(log), "-e", f".[{extras}]"],
                       cwd=HERE, env=environment, check=True)
        if not speed:
            return {}
        # The editable install points at this checkout; the venv's own llama_cpp is the one timed.
        lines = subprocess.run([str(env_dir / "bin" / "python"), str(HERE / "bench" / "llm_speed.py"), "--json", "--prompt-tokens", "512"],
                               cwd=HERE, check=True, capture_output=True, text=True).stdout.splitlines()
        figures = json.loads(lines[0])
        return {"prefill_tok_s": figures["prefill_tok_s"], "generate_tok_s": figures["generate_tok_s"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cmake-args", default=README_CMAKE_ARGS, help="CMAKE_ARGS (default: the README's)")
    parser.add_argument("--extras", default="test,local-llm", help="The extras the README installs")
    parser.add_argument("--from-log", type=Path, help="Read this pip --log file instead of installing")
    parser.add_argument("--label", default="", help="A label for the line")
    parser.add_argument("--speed", action="store_true", help="Then time the model the new venv built (bench/llm_speed.py)")
    parser.add_argument("--json", action="store_true", help="JSON (the only output format)")
    args = parser.parse_args()
    speed: dict[str, float] = {}
    if args.from_log is not None:
        log, cmake_args = args.from_log, None
    else:
        log, cmake_args = Path(tempfile.mkstemp(prefix="kgqa-install-", suffix=".log")[1]), args.cmake_args
        print(f"installing into a new venv, logging to {log} ...", file=sys.stderr)
        speed = install(args.extras, cmake_args, log, args.speed)
    print(json.dumps({"label": args.label, **parts(log), "cmake_args": cmake_args, **speed}))


if __name__ == "__main__":
    main()
