"""Answer again only the questions a naming rule can change, and compare.

    python rerun.py list PART OUT.json                       # the questions `named_less_fully` can change
    python rerun.py run CODE PART LIST.json OUT_DIR [RUN...]  # answer them with the code at CODE
    python rerun.py compare BEFORE_DIR AFTER_DIR [CHANGES.tsv]
    python rerun.py stitch OLD_REPORT_DIR AFTER_DIR NEW_REPORT_DIR

`list` reads each development set's sampled part (`--sample 30`, seed 0, as
`bench/devkgs/evaluate.py` samples it) and keeps the questions in which one relation of the
KG is named by a strict subset of the words naming another (`named_less_fully` over every
relation of the KG): only there can the rule mark a step unnamed, since it compares the
relations a walk could take at one point, a subset of the KG's. `run` answers just those
(`kgqa eval` with its selection cut to them) with PYTHONPATH=CODE, into OUT_DIR/<kg>-<kind>-<run>.jsonl.
`stitch` copies every report file with the listed questions' rows replaced by AFTER's.
Run from the repository root, with the development stores under work/devkg-stores-v2 and the
FB15k-237 subset loaded into work/fb15k237.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.append(str(ROOT))  # after PYTHONPATH: `run` answers with the code at CODE

from agent.evaluation.harness import read_rows
from bench.devkgs.evaluate import HERE, OWN_FACTS, RUNS, SETS, memory_of, store_name, store_of

STORES = ROOT / "work" / "devkg-stores-v2"
SHARED = ROOT.parent / "shared" / "data"


def kg_relations(kg: str) -> list[str]:
    if kg in ("metaqa", "metaqa-possessive"):
        lines = (SHARED / "metaqa" / "kb.txt").read_text(encoding="utf-8").splitlines()
        return sorted({line.split("|")[1] for line in lines if line.count("|") == 2})
    if kg in ("freebase", "freebase-possessive"):
        prefix = "<http://rdf.freebase.com/ns/"
        with gzip.open(SHARED / "freebase" / "fb15k237_freebase.nt.gz", "rt", encoding="utf-8") as facts:
            predicates = {line.split(" ", 2)[1] for line in facts if line.strip()}
        return sorted(p[len(prefix):-1] for p in predicates if p.startswith(prefix))
    lines = (HERE / kg / "kb.tsv").read_text(encoding="utf-8").splitlines()
    return sorted({line.split("\t")[1] for line in lines if line.strip()})


def list_questions(part: str, out: Path) -> None:
    from agent.embeddings import Embedder
    from agent.pog.config import ScoreWeights
    from agent.pog.memory import mask_question
    from agent.pog.scoring import PathScorer, named_less_fully
    from loaders.questions import read_questions, select

    embedder, listed = Embedder(), []
    for kg, sets in SETS.items():
        relations = kg_relations(kg)
        for kind, (path, fmt) in sets.items():
            if not path.exists():
                continue
            chosen = select(read_questions(path, fmt), sample=30, part=part)
            for question in chosen:
                masked = mask_question(question.text, [t.name or t.id for t in question.topic_entities])
                scorer = PathScorer(embedder, ScoreWeights(), masked, None, [], None)
                less = named_less_fully({r: scorer.naming_positions(r) for r in relations})
                if less:
                    listed.append([kg, kind, question.id, sorted(less)])
            print(kg, kind, len(chosen), sum(1 for k, s, *_ in listed if (k, s) == (kg, kind)), flush=True)
    out.write_text(json.dumps(listed, indent=0), encoding="utf-8")


def only_listed(ids_file: str, cli_args: list[str]) -> None:
    """`kgqa` with `eval`'s selection cut to the ids in `ids_file` (run in the child process)."""
    from agent.evaluation import run
    from kgqa.cli import app

    ids = set(Path(ids_file).read_text(encoding="utf-8").split())
    selected = run.selected_questions

    def cut(plan):
        chosen, gold = selected(plan)
        return [q for q in chosen if q.id in ids], gold

    run.selected_questions = cut
    sys.argv = ["kgqa", *cli_args]
    app()


def run_listed(code: str, part: str, listed_file: Path, out: Path, runs: list[str]) -> None:
    args = Namespace(metaqa_store=f"oxigraph:{Path.home()}/.local/share/kgqa/demo-store",
                     freebase_store=f"oxigraph:{ROOT / 'work' / 'fb15k237'}", relation_names="as-built",
                     values="as-built")
    by_set: dict[tuple[str, str], list[str]] = {}
    for kg, kind, qid, *_ in json.loads(listed_file.read_text(encoding="utf-8")):
        by_set.setdefault((kg, kind), []).append(qid)
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": code}
    for (kg, kind), ids in by_set.items():
        questions, fmt = SETS[kg][kind]
        store = store_of(kg, STORES, args)
        ids_file = out / f"{kg}-{kind}.ids"
        ids_file.write_text("\n".join(ids) + "\n", encoding="utf-8")
        for run in runs:
            memory = store_name(kg, "as-built") if kg in OWN_FACTS else kg
            extra = [str(memory_of(memory, store, STORES)) if a == "{memory}" else a for a in RUNS[run]]
            done = subprocess.run([sys.executable, __file__, "only", str(ids_file), "eval", "--questions",
                                   str(questions), "-f", fmt, "--store", store, "--part", part, "--sample", "30",
                                   "--out", str(out / f"{kg}-{kind}-{run}.jsonl"), *extra, "--json"],
                                  env=env, text=True, stdout=subprocess.PIPE, cwd=code, check=True)
            print(kg, kind, run, done.stdout.strip().splitlines()[-1], flush=True)


def compare(before: Path, after: Path, changes: Path | None) -> None:
    lines = ["set\tid\tquestion\thits1 before\thits1 after\tprediction before\tprediction after"]
    totals: dict[str, list[float]] = {}
    print("| set | mode | questions | right before → after | changed | won | lost |\n|---|---|---:|---|---:|---:|---:|")
    for path in sorted(before.glob("*.jsonl")):
        b, a = read_rows(path), read_rows(after / path.name)
        assert set(a) == set(b), f"{path.name}: not the same questions"
        changed = [i for i in b if b[i]["prediction"] != a[i]["prediction"]]
        counts = [len(b), sum(r["hits1"] for r in b.values()), sum(r["hits1"] for r in a.values()), len(changed),
                  sum(a[i]["hits1"] > b[i]["hits1"] for i in b), sum(a[i]["hits1"] < b[i]["hits1"] for i in b)]
        mode = "(b)" if path.stem.endswith("synth") else "(a)"
        print(f"| {path.stem.rsplit('-pog-', 1)[0]} | {mode} | {counts[0]} | {counts[1]:g} → {counts[2]:g} | "
              f"{counts[3]} | {counts[4]} | {counts[5]} |")
        totals[mode] = [t + c for t, c in zip(totals.get(mode, [0] * 6), counts, strict=True)]
        lines += [f"{path.stem}\t{i}\t{b[i]['question']}\t{b[i]['hits1']}\t{a[i]['hits1']}\t"
                  f"{' | '.join(b[i]['prediction'][:3])}\t{' | '.join(a[i]['prediction'][:3])}" for i in changed]
    for mode, t in totals.items():
        print(f"| all | {mode} | {t[0]:g} | {t[1]:g} → {t[2]:g} | {t[3]:g} | {t[4]:g} | {t[5]:g} |")
    if changes:
        changes.write_text("\n".join(lines) + "\n", encoding="utf-8")


def stitch(old: Path, after: Path, new: Path) -> None:
    new.mkdir(parents=True, exist_ok=True)
    replaced = 0
    for path in sorted(old.glob("*.jsonl.gz")):
        rows = list(read_rows(path).values())
        again_path = after / path.name.removesuffix(".gz")
        again = read_rows(again_path) if again_path.exists() else {}
        assert set(again) <= {r["id"] for r in rows}, path.name
        replaced += sum(r["id"] in again for r in rows)
        with gzip.open(new / path.name, "wt", encoding="utf-8") as out:
            out.writelines(json.dumps(again.get(r["id"], r), ensure_ascii=False) + "\n" for r in rows)
    print("rows replaced:", replaced)


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    if command == "list":
        list_questions(rest[0], Path(rest[1]))
    elif command == "only":
        only_listed(rest[0], rest[1:])
    elif command == "run":
        run_listed(rest[0], rest[1], Path(rest[2]), Path(rest[3]), rest[4:] or ["pog-nomem", "pog-synth"])
    elif command == "compare":
        compare(Path(rest[0]), Path(rest[1]), Path(rest[2]) if len(rest) > 2 else None)
    elif command == "stitch":
        stitch(Path(rest[0]), Path(rest[1]), Path(rest[2]))
    else:
        sys.exit(__doc__)
