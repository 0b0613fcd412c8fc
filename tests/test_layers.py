"""Layers point one way: `kgqa` (command line, web) -> `agent` -> `kg_store` / `loaders`."""

from __future__ import annotations

import json
import subprocess
import sys

# Import every module of the three library packages in a fresh interpreter, then list
# what of `kgqa` (and, for the lower two, of `agent`) got loaded along the way.
PROBE = """
import importlib, json, pkgutil, sys
loaded = {}
for package in ("loaders", "kg_store", "agent"):
    root = importlib.import_module(package)
    for module in pkgutil.walk_packages(root.__path__, package + "."):
        importlib.import_module(module.name)
    loaded[package] = sorted(m for m in sys.modules if m == "kgqa" or m.startswith("kgqa.")
                             or (package != "agent" and (m == "agent" or m.startswith("agent."))))
print(json.dumps(loaded))
"""


def test_the_library_never_imports_the_command_line() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, check=True)
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded == {"loaders": [], "kg_store": [], "agent": []}, loaded
