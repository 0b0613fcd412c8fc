"""Which questions' walks change when a capped hub keeps every relation (`hub_every_relation`).

    python bench/hub_walks.py --questions Q -f FORMAT [--store URL] [--sample 200] [--seed 0] [--depth 3] [--json]

The questions are the ones `kgqa eval --sample N --seed S` selects. For each, the topic
entities' paths are walked up to the question's hops (MetaQA's files say how many; else
`--depth`) with the agent's hub cap (`--limit`, 100), once as the store's first edges
and once with up to 10 edges of each relation the cap left out, and without a beam (a
superset of what the agent walks). Prints one JSON line: the questions, how many of
their walks differ, and those questions' ids and texts: the ones a run with the option
on can answer differently from a run without it. No model is asked.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kg_store import open_store
from kg_store.paths import Exploration, NeighborCache, explore
from loaders.questions import read_questions, select


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", required=True, type=Path, help="A questions file")
    parser.add_argument("-f", "--format", required=True, help="Its format, as for `kgqa eval -f`")
    parser.add_argument("--store", default=f"oxigraph:{Path.home()}/.local/share/kgqa/demo-store")
    parser.add_argument("--sample", type=int, default=None, help="As `kgqa eval --sample`")
    parser.add_argument("--seed", type=int, default=0, help="As `kgqa eval --seed`")
    parser.add_argument("--depth", type=int, default=3, help="Hops walked when the file does not say")
    parser.add_argument("--limit", type=int, default=100, help="The hub cap (PoG's limit_per_entity)")
    parser.add_argument("--json", action="store_true", help="JSON (the only output format)")
    args = parser.parse_args()

    questions = select(read_questions(args.questions, args.format), sample=args.sample, seed=args.seed)
    store = open_store(args.store, read_only=True)
    plain = NeighborCache(store, limit_per_entity=args.limit)
    filled = NeighborCache(store, limit_per_entity=args.limit, every_relation=True)
    differ = []
    for question in questions:
        hops = question.meta.get("hops", "")
        depth = int(hops) if hops.isdigit() else args.depth
        seeds = [t.id for t in question.topic_entities]
        walks = [explore(cache, seeds, depth=depth, max_frontier=5_000) for cache in (plain, filled)]
        if _groups(walks[0]) != _groups(walks[1]):
            differ.append({"id": question.id, "question": question.text})
    store.close()
    print(json.dumps({"questions": args.questions.name, "selected": len(questions), "walks_differ": len(differ),
                      "differ": differ}))


def _groups(walk: Exploration) -> set[tuple]:
    return {(g.seed, tuple(g.chain), tuple(frozenset(hop) for hop in g.hops)) for g in walk.groups}


if __name__ == "__main__":
    main()
