"""RoG / SubgraphRAG / GNN-RAG per-question JSONL: the union of the question graphs."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

from loaders.records import Malformed, Record, id_problem
from loaders.tabular import NameOnce
from loaders.textio import iter_lines


def parse_rog(
    path: Path, schema_prefixes: tuple[str, ...], on_bytes: Callable[[int], None] | None = None
) -> Iterator[Record]:
    """Entities in these files are names (`Jamaica`) or Freebase mids for CVTs (`m.04j5sk8`)."""
    name_once = NameOnce()
    for line_no, line in iter_lines(path, on_bytes):
        if not line.strip():
            continue
        try:
            graph = json.loads(line)["graph"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            yield Malformed(line_no, f"not a RoG JSON object with a 'graph' list ({exc.__class__.__name__})")
            continue
        if not isinstance(graph, list):
            yield Malformed(line_no, "'graph' is not a list")
            continue
        for item in graph:
            if not (isinstance(item, list) and len(item) == 3 and all(isinstance(x, str) and x for x in item)):
                yield Malformed(line_no, f"graph entry is not [head, relation, tail]: {str(item)[:80]}")
                continue
            head, relation, tail = (x.strip() for x in item)
            problem = id_problem(head, relation, tail)
            if problem:
                yield Malformed(line_no, problem)
                continue
            yield from name_once.fact(head, relation, tail, schema_prefixes)
