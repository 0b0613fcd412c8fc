"""Layers point one way: `kgqa` (command line, web) -> `agent` -> `loaders` -> `kg_store`, and
inside `agent/` from the top layer down (AGENT_LAYERS)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

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


# Inside `agent/`, bottom to top (agent/__init__.py says what each layer is): a module
# imports, at run time, only from its own unit and the layers below it. Imports under
# `if TYPE_CHECKING:` are for annotations and are not counted.
AGENT_LAYERS = (
    ("answer_text", "events", "process", "exec_with_death_signal", "minilm"),
    ("llm", "embeddings"),
    ("linking",),
    ("optional_nodes",),
    ("pog", "triples"),
    ("pipelines",),
    ("traces",),
    ("asking",),
    ("chat",),
    ("settings",),
    ("assembly",),
    ("evaluation",),
)


def _runtime_imports(tree: ast.AST) -> Iterator[tuple[str, int]]:
    annotation_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                       and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in annotation_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno
        elif isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)


def upward_imports(root: Path) -> list[str]:
    level = {unit: i for i, layer in enumerate(AGENT_LAYERS) for unit in layer}
    found = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if len(parts) < 2 or parts[1] == "__init__":
            continue
        unit = parts[1]
        if unit not in level:
            found.append(f"{path}: agent.{unit} is in no layer of AGENT_LAYERS")
            continue
        for module, line in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            target = module.split(".")
            if target[0] != "agent" or (len(target) > 1 and target[1] == unit):
                continue
            if len(target) == 1 or level.get(target[1], len(AGENT_LAYERS)) >= level[unit]:
                found.append(f"{path}:{line}: agent.{unit} imports {module}")
    return found


def test_inside_agent_layers_import_downward_only() -> None:
    assert upward_imports(Path(__file__).resolve().parents[1] / "agent") == []


def test_an_upward_import_is_caught(tmp_path: Path) -> None:
    (tmp_path / "agent" / "pog").mkdir(parents=True)
    (tmp_path / "agent" / "pog" / "nodes.py").write_text(
        "from typing import TYPE_CHECKING\nfrom agent.llm.base import LLMClient\n"
        "if TYPE_CHECKING:\n    from agent.settings import Settings\n"
        "def f():\n    from agent.evaluation.metrics import f1\n")
    caught = f"{tmp_path / 'agent' / 'pog' / 'nodes.py'}:6: agent.pog imports agent.evaluation.metrics"
    assert upward_imports(tmp_path / "agent") == [caught]


def test_every_error_raised_on_purpose_has_one_root_and_one_home() -> None:
    """`NotResults`, `ResultsInUse`, `SpecError` and `TraceError` sat outside `KGQAError`:
    an entry point that caught the root let them through as tracebacks."""
    import importlib
    import pkgutil

    import kgqa.errors
    from kg_store.errors import KGQAError

    defined = set()
    for package in ("kg_store", "loaders", "agent", "kgqa"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            if info.name.endswith("__main__") or info.name.startswith(("kgqa.cli", "kgqa.web", "kgqa.studio")):
                continue  # application modules start servers and models on import of their commands
            module = importlib.import_module(info.name)
            defined |= {obj for obj in vars(module).values() if isinstance(obj, type) and issubclass(obj, Exception)
                        and obj.__module__ == info.name and not obj.__name__.startswith("_")}
    assert defined and all(issubclass(error, KGQAError) for error in defined), \
        [e.__name__ for e in defined if not issubclass(e, KGQAError)]
    assert {e.__name__ for e in defined} == set(kgqa.errors.__all__)


def test_each_store_backend_is_one_file_and_none_imports_another_but_its_base() -> None:
    """`kg_store/neo4j.py` chose between Neo4j and FalkorDB and imported the FalkorDB store,
    which imports it: the registry chooses now, and backends share only their base
    (FalkorDB's store is the Neo4j one in FalkorDB's dialect)."""
    root = Path(__file__).resolve().parents[1] / "kg_store"
    backends = {"neo4j", "falkordb", "oxigraph", "sparql", "memory"}
    allowed = {"falkordb": {"neo4j"}}
    for backend in sorted(backends):
        imported = {module.split(".")[1] for module, _ in _runtime_imports(ast.parse((root / f"{backend}.py").read_text()))
                    if module.startswith("kg_store.")}
        assert not (imported & backends) - allowed.get(backend, set()), (backend, imported & backends)
    import inspect

    from kg_store import open_store

    assert not [p for p in inspect.signature(open_store).parameters if p.startswith("neo4j")]
