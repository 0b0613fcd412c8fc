"""A small KG with many relations, for what synthesis costs where every relation is rare:
20 facts of each relation of the FB15k-237 subset (a fixed seed), with their entities'
names. Not a question set: `bench/synthesis.py` times `kgqa memory synthesize` on it.

    python bench/devkgs/many_relations.py --out work/fb-sample.nt
    kgqa load -f freebase-nt work/fb-sample.nt --store oxigraph:work/fb-sample-store
    python bench/synthesis.py --store oxigraph:work/fb-sample-store --json
"""

from __future__ import annotations

import argparse
import gzip
import random
from collections import defaultdict
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[3] / "shared" / "data" / "freebase" / "fb15k237_freebase.nt.gz"
NAME = "type.object.name>"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--per-relation", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    by_relation: dict[str, list[str]] = defaultdict(list)
    names: dict[str, str] = {}
    with gzip.open(SOURCE, "rt", encoding="utf-8") as lines:
        for line in lines:
            subject, predicate, _ = line.split(" ", 2)
            if predicate.endswith(NAME):
                names[subject] = line
            else:
                by_relation[predicate].append(line)
    facts, entities = [], set()
    for relation in sorted(by_relation):
        chosen = rng.sample(by_relation[relation], min(args.per_relation, len(by_relation[relation])))
        facts += chosen
        for line in chosen:
            subject, _, rest = line.split(" ", 2)
            entities |= {subject, rest.rsplit(" .", 1)[0].strip()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(facts + [names[e] for e in sorted(entities) if e in names]), encoding="utf-8")
    print(f"{args.out}: {len(facts):,} facts of {len(by_relation)} relations")


if __name__ == "__main__":
    main()
