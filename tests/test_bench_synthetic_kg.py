"""`bench/synthetic_kg.py`: the Freebase-shaped KG the store benchmark grows to millions of facts."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

from bench.synthetic_kg import write_synthetic_kg
from kg_store import open_store
from loaders.load import load_file


def read(path: Path) -> str:
    with gzip.open(path, "rt") as text:
        return text.read()


def test_the_synthetic_kg_has_the_size_asked_hubs_and_unnamed_cvts_and_loads(tmp_path: Path) -> None:
    path = tmp_path / "kg.nt.gz"
    written = write_synthetic_kg(path, 20_000, seed=3)
    again = tmp_path / "again.nt.gz"
    write_synthetic_kg(again, 20_000, seed=3)
    assert read(path) == read(again)  # deterministic for a seed

    lines = read(path).splitlines()
    facts = [line.split()[:3] for line in lines if "type.object.name" not in line]
    named = {line.split()[0] for line in lines if "type.object.name" in line}
    assert len(facts) == len({tuple(f) for f in facts}) == written["facts"] == 20_000
    in_degree = Counter(tail for _, _, tail in facts)
    assert in_degree.most_common(1)[0][1] >= 20 * (len(facts) / len(in_degree))  # hubs, not a uniform graph
    unnamed_heads = {head for head, _, _ in facts} - named
    assert len(unnamed_heads) == written["cvt_nodes"] > 0  # CVT nodes: edges out, no name
    assert len({relation for _, relation, _ in facts}) > 100

    with open_store("memory:") as store:
        report = load_file(store, "freebase-nt", path)
        assert report.triples == 20_000 and report.names == written["names"] and report.malformed == 0
