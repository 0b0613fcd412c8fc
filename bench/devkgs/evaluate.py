"""Evaluate label-free pipelines on the development KGs (bench/devkgs/build.py), one part
of the development split, as `kgqa eval` runs them.

    python bench/devkgs/evaluate.py --part tune --sample 24 --out work/devkgs
    python bench/devkgs/evaluate.py --part report --sample 30 --out results/DATE/devkgs \
        --runs pog-nomem pog-synth cosine-triples llm-only
    python bench/devkgs/evaluate.py --part tune --kgs metaqa freebase --out work/bench   # the benchmarks' dev sets

Each development KG is loaded into an embedded store under `--stores` (once); MetaQA's KB and
the FB15k-237 subset are read from stores you loaded (`--metaqa-store`, `--freebase-store`).
Each store is, for `pog-synth`, given
a path memory synthesised from the graph alone (`kgqa memory synthesize`, once). Then every
question set of every KG is evaluated by every run, `--sample` questions of the chosen part
each (a seed-0 sample of the part, so every template of it can be drawn); results go to OUT/<kg>-<kind>-<run>.jsonl, which a rerun resumes. Prints one JSON line
per evaluation (the summary `kgqa eval --json` gives, with kg, kind and run).
Read traces of the tuning part only; report the report part.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[2] / "shared" / "data"
DEV_KGS = ("geo", "elements", "languages", "packages", "units", "metaqa-possessive", "freebase-possessive")
OWN_FACTS = ("geo", "elements", "languages", "packages", "units")  # the KGs with facts of their own (kb.tsv)
BENCHMARKS = ("metaqa", "freebase")
# Each KG's question sets: kind -> (file, format).
SETS = {
    **{kg: {kind: (HERE / kg / f"questions_{kind}.txt", "metaqa") for kind in ("1hop", "2hop", "3hop", "conj", "2hop-alt", "2hop-alt2", "3hop-alt",
                                                                                   "conj-alt")}
       for kg in DEV_KGS},
    "metaqa": {f"{h}hop": (SHARED / "metaqa" / f"qa_dev_{h}hop.txt", "metaqa") for h in (1, 2, 3)},
    "freebase": {name: (SHARED / "freebase" / "questions" / f"{name}_dev.json", "pog") for name in ("webqsp", "cwq")},
}
KINDS = sorted({kind for sets in SETS.values() for kind in sets})
# run name -> kgqa eval arguments; "{memory}" is the store's synthesised memory.
RUNS = {
    "pog-nomem": ["--pipeline", "pog"],
    "pog-synth": ["--pipeline", "pog", "--path-memory", "{memory}"],
    "pog-paper": ["--pipeline", "pog", "--preset", "paper"],  # PoG as the paper describes it, no memory
    "cosine-triples": ["--pipeline", "cosine-triples"],
    "llm-only": ["--pipeline", "llm-only"],
}
def kgqa(*args: str, capture: bool = False) -> str:
    done = subprocess.run([sys.executable, "-m", "kgqa.cli", *args], check=True, text=True,
                          stdout=subprocess.PIPE if capture else None)
    return done.stdout or ""


def store_of(kg: str, stores: Path, args: argparse.Namespace) -> str:
    if kg in ("metaqa", "metaqa-possessive"):
        return args.metaqa_store
    if kg in ("freebase", "freebase-possessive"):
        return args.freebase_store
    name = store_name(kg, args.relation_names, args.values)
    url = f"oxigraph:{stores / name}"
    if not (stores / name).exists():
        facts = HERE / kg / "kb.tsv"
        if args.relation_names == "prefixed-camel":
            facts = stores / f"{name}.tsv"
            facts.write_text(renamed_relations((HERE / kg / "kb.tsv").read_text(encoding="utf-8")), encoding="utf-8")
        if args.values == "literal":
            load_with_literal_values(facts.read_text(encoding="utf-8"), url)
        else:
            kgqa("load", "-f", "tsv", str(facts), "--store", url)
    return url


def store_name(kg: str, relation_names: str, values: str = "as-built") -> str:
    suffixes = [s for s in (relation_names, f"{values}-values") if not s.startswith("as-built")]
    return "-".join([kg, *suffixes])


_NUMBER_OR_DATE = re.compile(r"[+-]?\d[\d,.]*|-?\d{1,4}-\d{2}(-\d{2})?")


def literal_relations(facts: list[tuple[str, str, str]]) -> set[str]:
    """The relations an RDF graph would keep as literal attributes, by a rule fixed before
    any run: every tail is the head of no fact, and reads as a number or a date or is the
    tail of no other fact (an element's symbol, its atomic number, a country's population)."""
    heads = {head for head, _, _ in facts}
    uses = Counter(tail for _, _, tail in facts)
    tails: dict[str, list[str]] = {}
    for _, relation, tail in facts:
        tails.setdefault(relation, []).append(tail)
    return {relation for relation, values in tails.items()
            if all(v not in heads for v in values)
            and (all(_NUMBER_OR_DATE.fullmatch(v) for v in values) or all(uses[v] == 1 for v in values))}


def load_with_literal_values(tsv: str, url: str) -> None:
    """The facts of `literal_relations` written as literal attributes (as an RDF load writes
    a literal), the rest as facts between entities named by their ids, as `kgqa load -f tsv`
    writes them. Questions whose topic is such a value have no topic entity in this store."""
    from kg_store import Attribute, LoadBatch, Triple, open_store

    facts = [tuple(line.split("\t")) for line in tsv.splitlines() if line.strip()]
    literal = literal_relations(facts)  # type: ignore[arg-type]
    batch = LoadBatch()
    for head, relation, tail in facts:
        if relation in literal:
            batch.attributes.append(Attribute(head, relation, tail))
        else:
            batch.triples.append(Triple(head, relation, tail))
    entities = {t.head for t in batch.triples} | {t.tail for t in batch.triples} | {a.subject for a in batch.attributes}
    batch.names.extend((e, e) for e in sorted(entities))
    with open_store(url) as store:
        store.write(batch)
        store.after_load()
    print(f"{url}: {len(batch.triples)} facts, {len(batch.attributes)} literal values of {sorted(literal)}", file=sys.stderr)


def renamed_relations(tsv: str) -> str:
    """The facts with each relation named as RDF vocabularies name theirs, a prefix and camel
    case (`official_language` -> `ex:officialLanguage`): a KG loaded from a table keeps the
    names its source gave its relations."""
    def camel(relation: str) -> str:
        first, *rest = relation.split("_")
        return "ex:" + first + "".join(w[:1].upper() + w[1:] for w in rest)

    lines = []
    for line in tsv.splitlines():
        head, relation, tail = line.split("\t")
        lines.append(f"{head}\t{camel(relation)}\t{tail}")
    return "\n".join(lines) + "\n"


def memory_of(kg: str, store: str, stores: Path) -> Path:
    path = stores / f"{kg.removesuffix('-possessive')}-memory.jsonl"  # one memory a store
    if not path.exists() or path.stat().st_size == 0:
        kgqa("memory", "synthesize", "--store", store, "--out", str(path))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("tune", "report"), required=True)
    parser.add_argument("--sample", type=int, default=30, help="Questions of the part per set (a seed-0 sample).")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--stores", type=Path, default=Path("work/devkg-stores"))
    parser.add_argument("--metaqa-store", default=f"oxigraph:{Path.home()}/.local/share/kgqa/demo-store",
                        help="The store holding MetaQA's KB (kgqa demo loads it).")
    parser.add_argument("--freebase-store", default="oxigraph:work/fb15k237",
                        help="The store holding the FB15k-237 subset (kgqa load -f freebase-nt).")
    parser.add_argument("--kgs", nargs="+", default=list(DEV_KGS), choices=[*DEV_KGS, *BENCHMARKS])
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--runs", nargs="+", default=["pog-nomem", "pog-synth"], choices=list(RUNS))
    parser.add_argument("--relation-names", choices=("as-built", "prefixed-camel"), default="as-built",
                        help="geo, elements and languages with their relations as built (`official_language`), or renamed as RDF "
                             "vocabularies name theirs (`ex:officialLanguage`); the other sets keep theirs.")
    parser.add_argument("--values", choices=("as-built", "literal"), default="as-built",
                        help="geo, elements and languages with every fact between entities as built, or with the "
                             "relations an RDF graph would keep as literals (numbers, dates, codes) written as literal "
                             "attributes (`literal_relations`); the other sets keep theirs.")
    parser.add_argument("--link", action="store_true",
                        help="Withhold the topic entities: each run links them from the question's text (kgqa eval --link).")
    parser.add_argument("--json", action="store_true", help="JSON lines (the only output format)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.stores.mkdir(parents=True, exist_ok=True)
    for kg in args.kgs:
        store = store_of(kg, args.stores, args)
        for kind in args.kinds:
            if kind not in SETS[kg] or not SETS[kg][kind][0].exists():
                continue
            questions, fmt = SETS[kg][kind]
            for run in args.runs:
                memory_name = store_name(kg, args.relation_names, args.values) if kg in OWN_FACTS else kg
                extra = [str(memory_of(memory_name, store, args.stores)) if a == "{memory}" else a for a in RUNS[run]]
                out = args.out / f"{kg}-{kind}-{run}.jsonl"
                summary = json.loads(kgqa("eval", "--questions", str(questions), "-f", fmt, "--store", store,
                                          "--part", args.part, "--sample", str(args.sample), "--out", str(out),
                                          *extra, *(["--link"] if args.link else []), "--json",
                                          capture=True).strip().splitlines()[-1])
                print(json.dumps({"kg": kg, "kind": kind, "run": run, "part": args.part, "topics": "linked" if args.link
                                  else "given", **summary}), flush=True)


if __name__ == "__main__":
    main()
