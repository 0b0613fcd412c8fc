"""A synthetic Freebase-shaped KG of any size, as Freebase N-Triples, for store benchmarks.

    python bench/synthetic_kg.py --facts 1000000 --out kg-1m.nt.gz [--seed 0]

Shape, after FB15k-237 and Freebase: 237 relations with Zipf-distributed frequencies;
entity-to-entity facts whose tails are drawn from a power law, so a few entities are hubs
with tens of thousands of in-edges (countries, genders, languages) and each relation has
its own hubs; a quarter of the facts go through unnamed CVT nodes (one edge in, two out,
like `film.performance`); every other entity has an English `type.object.name`. About 12
facts per entity, as many heads as tails skewed mildly. `--facts` counts distinct
entity-to-entity facts (names come on top). Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from pathlib import Path

import numpy as np

NS = "http://rdf.freebase.com/ns/"
RELATIONS = 237
FACTS_PER_ENTITY = 12
CVT_SHARE = 0.25  # of the facts: those on a path through a CVT node
HEAD_SKEW, TAIL_SKEW = 0.5, 1.1  # Zipf exponents: heads mildly skewed, tails with hubs


def _zipf_draw(rng: np.random.Generator, n: int, size: int, skew: float) -> np.ndarray:
    """`size` ranks in [0, n), rank k drawn with weight 1 / (k + 1) ** skew."""
    weights = 1.0 / np.arange(1, n + 1) ** skew
    cumulative = np.cumsum(weights)
    return np.searchsorted(cumulative, rng.random(size) * cumulative[-1], side="right").clip(0, n - 1)


def named_entities(facts: int) -> int:
    """How many named entities a KG of `facts` has: their ids are 0 to this, `m.0<hex>`."""
    return max(10, int(facts / FACTS_PER_ENTITY * (1 - CVT_SHARE / 3)))


def synthetic_facts(facts: int, seed: int) -> tuple[np.ndarray, int, int]:
    """(rows of head, relation, tail ids; named entities; CVT nodes): CVT ids follow the named ones."""
    rng = np.random.default_rng(seed)
    named = named_entities(facts)
    cvts = int(facts * CVT_SHARE / 3)
    relation_weights = 1.0 / np.arange(1, RELATIONS + 1)
    relation_weights /= relation_weights.sum()
    # Each relation has its own hubs: a relation's tail ranks are shifted by its own offset.
    offsets = rng.integers(0, named, RELATIONS)
    head_order, tail_order = rng.permutation(named), rng.permutation(named)

    def entity_facts(size: int, heads: np.ndarray | None = None) -> np.ndarray:
        relations = rng.choice(RELATIONS, size, p=relation_weights)
        if heads is None:
            heads = head_order[_zipf_draw(rng, named, size, HEAD_SKEW)]
        tails = tail_order[(_zipf_draw(rng, named, size, TAIL_SKEW) + offsets[relations]) % named]
        return np.stack([heads, relations, tails], axis=1)

    cvt_ids = named + np.arange(cvts)
    into_cvt = entity_facts(cvts)
    into_cvt[:, 2] = cvt_ids  # entity -> CVT ...
    out_of_cvt = entity_facts(2 * cvts, heads=np.repeat(cvt_ids, 2))  # ... CVT -> two entities
    through_cvts = np.unique(np.concatenate([into_cvt, out_of_cvt]), axis=0)
    # Direct facts never touch a CVT, so they are distinct from the rows above; a head
    # linked to the same hub twice counts once, and fresh draws make up the count.
    wanted = facts - len(through_cvts)
    direct = np.unique(entity_facts(wanted + wanted // 20), axis=0)
    while len(direct) < wanted:
        direct = np.unique(np.concatenate([direct, entity_facts(wanted - len(direct) + 1000)]), axis=0)
    direct = direct[rng.permutation(len(direct))[:wanted]]
    rows = np.concatenate([direct, through_cvts])
    return rows[rng.permutation(len(rows))], named, cvts


def write_synthetic_kg(path: Path, facts: int, seed: int = 0) -> dict:
    """Write the KG to `path` (.nt or .nt.gz); returns its counts and the seconds it took."""
    started = time.perf_counter()
    rows, named, cvts = synthetic_facts(facts, seed)
    relation_iris = [f"<{NS}syn.type_{r % 40}.relation_{r}>" for r in range(RELATIONS)]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(tmp, "wt", encoding="utf-8", **({"compresslevel": 1} if path.suffix == ".gz" else {})) as out:
        name_iri = f"<{NS}type.object.name>"
        for start in range(0, named, 100_000):
            out.write("".join(f'<{NS}m.0{e:x}> {name_iri} "Synthetic entity {e}"@en .\n'
                              for e in range(start, min(named, start + 100_000))))
        for start in range(0, len(rows), 100_000):
            out.write("".join(f"<{NS}m.0{h:x}> {relation_iris[r]} <{NS}m.0{t:x}> .\n"
                              for h, r, t in rows[start:start + 100_000].tolist()))
    tmp.replace(path)  # a crash leaves no half-written file behind under the real name
    in_degree = np.bincount(rows[:, 2], minlength=named + cvts)
    return {"facts": len(rows), "named_entities": named, "cvt_nodes": cvts, "names": named,
            "max_in_degree": int(in_degree.max()), "seconds": round(time.perf_counter() - started, 1)}


def cached_synthetic_kg(folder: Path, facts: int, seed: int = 0) -> Path:
    """The KG's file in `folder`, written on first use."""
    path = folder / f"synthetic-freebase-{facts}-seed{seed}.nt.gz"
    if not path.exists():
        print(f"writing {path.name} ...", file=sys.stderr, flush=True)
        write_synthetic_kg(path, facts, seed)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import json

    print(json.dumps(write_synthetic_kg(args.out, args.facts, args.seed)))


if __name__ == "__main__":
    main()
