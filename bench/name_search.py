"""Name search benchmark: a synthetic store of N names, then exact and partial
`search_entities` timed over 200 queries each (seed 0).

    python bench/name_search.py --json [--names 1000000] [--store URL] [--queries 200]

Names have realistic shapes: 1-4 capitalised tokens drawn from a large vocabulary with a
Zipf-like skew (a few hub tokens, "The", "Of", "John", "Saint", ..., appear in many
names), some accents and punctuation, and repeated names (several entities called
"Emma"). By default the store is a fresh embedded Oxigraph store in a temporary folder;
--store takes any store URL (it is cleared first).

Queries, drawn from the stored names: exact ones are stored names (a quarter lower-cased,
so they hit the normalised-name lookup); partial ones are a third each one token of a
name ("hanks"), a name typed half way ("tom han"), and two of its tokens in reverse
order ("hanks tom"). Prints JSON lines: one for the build (load and index seconds), one
per query kind with p50/p95/mean ms and how often the name the query came from is among
the 10 results, and, for an on-disk Oxigraph store, one for rebuilding a missing index
and (--old-scan N) one timing the SPARQL scan this index replaced on the first N
partial queries.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg_store import LoadBatch, open_store
from kg_store.ids import NAME_IRI, NORM_NAME_IRI, normalize_name
from kg_store.names import SIDE_FILE
from kg_store.sparql_text import NAME_FILTER, iri_ref, literal

HUBS = ["The", "Of", "John", "De", "New", "Saint", "City", "United", "Park", "Love", "Mary", "Van", "And", "Club"]
ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "pr", "r", "s",
          "sh", "st", "t", "tr", "v", "w", "z", ""]
VOWELS = ["a", "e", "i", "o", "u", "ou", "ai", "ea", "é", "ö", "y"]
CODAS = ["", "", "n", "r", "s", "l", "m", "t", "nd", "rt", "x", "ck"]
TOKENS_PER_NAME = (1, 2, 3, 4)
TOKEN_WEIGHTS = (0.15, 0.5, 0.25, 0.1)


def vocabulary(rng: random.Random, size: int) -> list[str]:
    words: dict[str, None] = dict.fromkeys(HUBS)
    while len(words) < size:
        syllables = rng.choice((1, 2, 2, 3, 3, 4))
        word = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(syllables))
        words.setdefault(word.capitalize(), None)
    return list(words)


def synthetic_names(n: int, seed: int = 0, vocabulary_size: int = 200_000) -> list[tuple[str, str]]:
    """(entity id, name) pairs: n names from a Zipf-skewed vocabulary; about one name in
    twenty repeats an earlier one."""
    rng = random.Random(seed)
    vocab = vocabulary(rng, vocabulary_size)
    cum = list(itertools.accumulate(1.0 / (rank + 8) for rank in range(len(vocab))))
    lengths = rng.choices(TOKENS_PER_NAME, TOKEN_WEIGHTS, k=n)
    draws = iter(rng.choices(vocab, cum_weights=cum, k=sum(lengths)))
    names: list[tuple[str, str]] = []
    for i, length in enumerate(lengths):
        if names and rng.random() < 0.05:
            name = names[rng.randrange(len(names))][1]
        else:
            name = " ".join(itertools.islice(draws, length))
            if rng.random() < 0.03:
                name += f" ({rng.randrange(1900, 2030)})"
            elif rng.random() < 0.02:
                name = name.replace(" ", "-", 1)
        names.append((f"m.syn{i:08d}", name))
    return names


def queries(names: list[tuple[str, str]], count: int, seed: int = 0) -> dict[str, list[tuple[str, str]]]:
    """(query, the entity it came from) per kind."""
    rng = random.Random(seed)
    exact, partial = [], []
    for _ in range(count):
        entity, name = names[rng.randrange(len(names))]
        exact.append((name.lower() if rng.random() < 0.25 else name, entity))
    for i in range(count):
        entity, name = names[rng.randrange(len(names))]
        tokens = name.replace("-", " ").replace("(", "").replace(")", "").split()
        shape = i % 3
        if shape == 0 or len(tokens) == 1 and shape == 2:
            query = rng.choice(tokens)
        elif shape == 1:
            typed = rng.randrange(min(3, len(name)), len(name) + 1)  # a two-letter name is typed whole
            query = name[:typed]
        else:
            first, second = sorted(rng.sample(range(len(tokens)), 2))
            query = f"{tokens[second]} {tokens[first]}"
        partial.append((query.lower(), entity))
    return {"exact": exact, "partial": partial}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def time_queries(store, items: list[tuple[str, str]], partial: bool) -> dict[str, float]:
    store.search_entities(items[0][0], partial=partial)  # warm once
    times, found = [], 0
    for text, entity in items:
        start = time.perf_counter()
        matches = store.search_entities(text, limit=10, partial=partial)
        times.append((time.perf_counter() - start) * 1000)
        found += any(m.id == entity for m in matches)
    return {
        "p50_ms": round(statistics.median(times), 3),
        "p95_ms": round(percentile(times, 0.95), 3),
        "mean_ms": round(statistics.fmean(times), 3),
        "max_ms": round(max(times), 3),
        "source_in_top10": round(found / len(items), 3),
    }


def old_scan_query(normalized: str, limit: int) -> str:
    """The partial search before the text index: CONTAINS over every normalised name."""
    norm_p, name_p, needle = iri_ref(NORM_NAME_IRI), iri_ref(NAME_IRI), literal(normalized)
    return (
        f"SELECT ?e ?n ?kind WHERE {{ ?e {norm_p} ?norm . FILTER(CONTAINS(?norm, {needle})) "
        f'BIND(IF(STRSTARTS(?norm, {needle}), "prefix", "contains") AS ?kind) '
        f'?e {name_p} ?n . {NAME_FILTER} }} ORDER BY DESC(?kind = "prefix") STRLEN(?n) LIMIT {int(limit) * 4}'
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--names", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--store", help="a store URL (cleared first); default: a new embedded store in a temporary folder")
    parser.add_argument("--old-scan", type=int, default=0, metavar="N",
                        help="also time the replaced SPARQL scan on the first N partial queries (embedded store)")
    parser.add_argument("--json", action="store_true", help="JSON lines only")
    args = parser.parse_args(argv)

    def emit(record: dict) -> None:
        print(json.dumps(record) if args.json else "  ".join(f"{k}={v}" for k, v in record.items()), flush=True)

    common = {"bench": "name_search", "names": args.names, "seed": args.seed, "python": platform.python_version(),
              "cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)}
    with tempfile.TemporaryDirectory(prefix="kgqa-names-") as tmp:
        url = args.store or f"oxigraph:{Path(tmp) / 'store'}"
        backend = url.split(":", 1)[0]
        start = time.perf_counter()
        names = synthetic_names(args.names, args.seed)
        generate_s = time.perf_counter() - start
        store = open_store(url)
        store.clear()
        start = time.perf_counter()
        step = store.write_batch_size
        for i in range(0, len(names), step):
            store.write(LoadBatch(names=names[i : i + step]))
        load_s = time.perf_counter() - start
        start = time.perf_counter()
        store.after_load()
        settle_s = time.perf_counter() - start
        emit({**common, "backend": backend, "what": "build", "generate_s": round(generate_s, 2),
              "write_s": round(load_s, 2), "after_load_s": round(settle_s, 2),
              "distinct_names": len({n for _, n in names})})
        asked = queries(names, args.queries, args.seed)
        for kind, partial in (("exact", False), ("partial", True)):
            emit({**common, "backend": backend, "what": kind, "queries": len(asked[kind]),
                  **time_queries(store, asked[kind], partial)})
        if args.old_scan and backend == "oxigraph":
            times = []
            for text, _ in asked["partial"][: args.old_scan]:
                start = time.perf_counter()
                list(store._store.query(old_scan_query(normalize_name(text), 10)))
                times.append((time.perf_counter() - start) * 1000)
            emit({**common, "backend": backend, "what": "partial_old_scan", "queries": len(times),
                  "p50_ms": round(statistics.median(times), 3), "max_ms": round(max(times), 3)})
        path = getattr(store, "path", None)
        store.close()
        del store
        gc.collect()  # Oxigraph lets go of its folder's lock only when the store object goes
        if backend == "oxigraph" and path is not None:
            # A store without its side index (written by an older kgqa): built at the first search.
            (path / SIDE_FILE).unlink()
            store = open_store(url)
            start = time.perf_counter()
            store.search_entities("tom han")
            rebuild_s = time.perf_counter() - start
            emit({**common, "backend": backend, "what": "rebuild_missing_index", "first_search_s": round(rebuild_s, 2),
                  "partial_after_rebuild": time_queries(store, asked["partial"], True)["p50_ms"]})
            store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
