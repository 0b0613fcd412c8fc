"""The start-up work of `kgqa demo` on a fresh machine, each part alone.

    python bench/startup_parts.py --json [--runs 3]

`bench/first_answer.py` times the parts running at once (the demo KG's load in a child
process, the agent's imports, embeddings and path memory in the command, the model's start
on a thread). This times each alone, in a fresh Python process of its own and with a fresh
data folder, so that the two can be compared: on two cores, parts that run at once can be
ready no sooner than half the sum of their CPU seconds, and no sooner than the longest of
them alone.

- `store`: the demo KG (the MetaQA film KB) loaded into a new on-disk Oxigraph store,
  through `load_file` as `kgqa demo` does;
- `agent`: the imports of the agent's modules, the embeddings' start and the bundled path
  memory's load, as `kgqa demo` does them;
- `model`: the embedded model's weights joined and checked, and its server started until it
  answers.

Prints one JSON line a part and run: its wall and CPU seconds (the process's own and its
children's); then one line with each part's median wall seconds, their sum, and half the
sum of the median CPU seconds (the two-core floor).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Each part's code, run by a fresh interpreter (`python -c`) with KGQA_DATA_DIR set to a new
# folder; it prints its own wall seconds, from before its first import of kgqa.
PARTS = {
    "store": """
from kgqa.settings import Settings
from kgqa.cli.ask import DEMO_KG
from kg_store import open_store
from loaders.load import load_file
from importlib import resources
settings = Settings()
store = open_store(f"oxigraph:{settings.data_dir / 'demo-store'}", schema_prefixes=settings.schema_prefixes)
with resources.as_file(resources.files("kgqa") / "data" / DEMO_KG) as kb:
    load_file(store, "metaqa", kb)
store.close()
""",
    "agent": """
from kgqa.settings import Settings
from kgqa.cli.ask import DEMO_MEMORY
from agent.asking import answer_question
from agent.embeddings import Embedder
from agent.assembly.context import pog_context
from agent.llm.starting import StartingLLM
from agent.pog.memory import PathMemory
from importlib import resources
settings = Settings()
embedder = Embedder.from_settings(settings)
with resources.as_file(resources.files("kgqa") / "data" / DEMO_MEMORY) as memory:
    PathMemory.load(memory, embedder)
""",
    "model": """
from kgqa.settings import Settings
from agent.assembly.models import open_llm
with open_llm(Settings(llm_cache=False)):
    pass
""",
}
TIMED = "import time\nstarted = time.monotonic()\n{code}\nprint(time.monotonic() - started)\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="Runs of each part, alternating")
    parser.add_argument("--json", action="store_true", help="JSON (the only output format)")
    args = parser.parse_args()

    walls: dict[str, list[float]] = {part: [] for part in PARTS}
    cpus: dict[str, list[float]] = {part: [] for part in PARTS}
    for run in range(1, args.runs + 1):
        for part, code in PARTS.items():
            wall, cpu = time_part(code)
            walls[part].append(wall)
            cpus[part].append(cpu)
            print(json.dumps({"part": part, "run": run, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}), flush=True)
    median_walls = {part: statistics.median(seconds) for part, seconds in walls.items()}
    median_cpus = {part: statistics.median(seconds) for part, seconds in cpus.items()}
    print(json.dumps({"part": "all", **{f"{part}_wall_s": round(s, 2) for part, s in median_walls.items()},
                      "sum_wall_s": round(sum(median_walls.values()), 2),
                      "two_core_floor_s": round(max(sum(median_cpus.values()) / 2, *median_walls.values()), 2)}))


def time_part(code: str) -> tuple[float, float]:
    """(wall seconds the part reported, CPU seconds of its process and its children)."""
    with tempfile.TemporaryDirectory(prefix="kgqa-part-") as data_dir:
        env = {**os.environ, "KGQA_DATA_DIR": data_dir, "PYTHONPATH": str(ROOT)}
        before = os.times()
        done = subprocess.run([sys.executable, "-c", TIMED.format(code=code)], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=False)
        after = os.times()
    if done.returncode != 0:
        raise SystemExit(f"a part failed: {done.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return float(done.stdout.strip().splitlines()[-1]), cpu


if __name__ == "__main__":
    main()
