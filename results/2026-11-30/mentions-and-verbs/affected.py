"""The questions of every development set that this folder's rules can change, by file, as
JSON on stdout. Only these were answered again; every other question's score parts are the
same before and after, so its answer is too.

- mentions: some relation of the KG is named by two words side by side (`scoring.mentions`
  counts them once); every relation of the KG is tried, a superset of any candidates'.
- roots: two words apart share their first four letters and one root but are not the same
  word ("units", "unit"; `named_twice` compares roots now).
- closing verb: the question says nothing of what it asks and ends on a link word
  (`PathScorer.closing_verb_at`).

Run from the repository root, with the FB15k-237 subset loaded (`kgqa load`):
    python results/2026-11-30/mentions-and-verbs/affected.py --freebase-store oxigraph:work/fb-store \
        > affected.json
"""

import argparse
import glob
import json
import sys
from pathlib import Path

from agent.embeddings import Embedder
from agent.pog import candidates as C
from agent.pog.config import ScoreWeights
from agent.pog.memory import mask_question
from agent.pog.scoring import PathScorer, mentions
from agent.settings import Settings
from kg_store.registry import open_store
from loaders.questions import read_questions

DATA = Path("../shared/data")


def kb_relations(path: Path) -> set[str]:
    relations = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t") if "\t" in line else line.split("|")
        if len(parts) == 3:
            relations.add(parts[1])
    return relations


def rules_that_apply(scorer: PathScorer, relations: set[str]) -> list[str]:
    words = scorer.words
    found = []
    if any(mentions(scorer.naming_positions(r)) < len(scorer.naming_positions(r)) for r in relations):
        found.append("mentions")
    at = [i for i, w in enumerate(words) if C.may_name_a_relation(w) and w != "x"]
    if any(j - i > 1 and words[i][:4] == words[j][:4] and words[i] != words[j]
           and C.word_root(words[i]) == C.word_root(words[j]) for k, i in enumerate(at) for j in at[k + 1:]):
        found.append("roots")
    if scorer.closing_verb_at is not None:
        found.append("closing verb")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--freebase-store", required=True)
    args = parser.parse_args()
    embedder = Embedder.from_settings(Settings())
    metaqa = kb_relations(DATA / "metaqa" / "kb.txt")
    freebase = set(open_store(args.freebase_store, read_only=True).relation_names())
    relations = {"metaqa": metaqa, "metaqa-possessive": metaqa, "freebase": freebase, "freebase-possessive": freebase}
    sets = []
    for path in sorted(glob.glob("bench/devkgs/*/questions_*.txt")):
        kg = Path(path).parent.name
        if kg not in relations:
            relations[kg] = kb_relations(Path(path).parent / "kb.tsv")
        sets.append((Path(path), "metaqa", kg))
    sets += [(Path(p), "metaqa", "metaqa") for p in sorted(glob.glob(str(DATA / "metaqa" / "qa_dev_*hop.txt")))]
    sets += [(Path(p), "pog", "freebase") for p in sorted(glob.glob(str(DATA / "freebase" / "questions" / "*_dev.json")))]
    out: dict[str, dict[str, list[str]]] = {}
    for path, fmt, kg in sets:
        for q in read_questions(path, fmt).questions:
            masked = mask_question(q.text, [t.name or t.id for t in q.topic_entities])
            for rule in rules_that_apply(PathScorer(embedder, ScoreWeights(fit=0), masked, None, [], None), relations[kg]):
                out.setdefault(str(path), {}).setdefault(rule, []).append(q.id)
        print(path, {r: len(ids) for r, ids in out.get(str(path), {}).items()}, file=sys.stderr)
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
