"""How often a path memory's best path for a question is the right one: the figure the
synthesised memory's reading (`agent/pog/memory.py`, the SYNTHETIC_* constants) was set by.

    python bench/memory_match.py --memory M.jsonl [--store URL] [--reference R.jsonl.gz]
        [--questions FILE ...] [--format metaqa|pog] [--sample 200] [--seed 0] [--json]

For each question (a fixed-seed sample of each file, as `kgqa eval --sample` draws it),
the memory's prior is computed as the agent computes it (`agent.pog.analysis.memory_prior`:
the question masked, only the sequences its topic entities have), and its best sequence is
compared with the sequences the reference memory (a labelled one: the bundled MetaQA memory
by default) holds for the same question id. The labels are read here only to count; the
agent never sees them.
Prints one JSON object: per file, the share of questions whose best path is a labelled
one, and whose best path has a labelled path's length.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agent.embeddings import Embedder
from agent.linking import Entity
from agent.pog.analysis import masked_topics, memory_prior
from agent.pog.config import PoGConfig
from agent.pog.memory import PathMemory, read_entries
from kg_store import open_store
from loaders.questions import question_group, read_questions, select

ROOT = Path(__file__).resolve().parent.parent
METAQA = ROOT.parent / "shared" / "data" / "metaqa"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", required=True, type=Path, help="The memory to read (e.g. a synthesised one)")
    parser.add_argument("--store", default=f"oxigraph:{Path.home()}/.local/share/kgqa/demo-store")
    parser.add_argument("--reference", type=Path, default=ROOT / "kgqa" / "data" / "metaqa_path_memory.jsonl.gz",
                        help="A labelled memory: its paths for a question id count as right")
    parser.add_argument("--questions", nargs="+", type=Path,
                        default=[METAQA / f"qa_dev_{h}hop.txt" for h in (1, 2, 3)], help="Question files")
    parser.add_argument("--format", default="metaqa", help="The question files' format (as kgqa eval -f)")
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="JSON (the only output format)")
    args = parser.parse_args()

    config = PoGConfig()
    embedder = Embedder()
    memory = PathMemory.load(args.memory, embedder)
    labelled = {e.question_id: {tuple((r, bool(f)) for r, f in p) for p in e.paths}
                for e in read_entries(args.reference)}
    store = open_store(args.store, read_only=True)
    neighbours = config.neighbour_cache(store)
    report: dict[str, dict[str, float | int]] = {}
    for path in args.questions:
        chosen = select(read_questions(path, args.format), sample=args.sample, seed=args.seed)
        right = right_length = 0
        for question in chosen:
            topics = [Entity(id=t.id, name=t.name) for t in question.topic_entities]
            masked = masked_topics(question.text, topics, store, neighbours)
            prior = memory_prior(memory, neighbours, embedder, config, masked, [t.id for t in topics],
                                 question_id=question.id, question_group=question_group(question))
            best = tuple((r, bool(f)) for r, f in prior[0].steps) if prior else ()
            wanted = labelled.get(question.id, set())
            right += best in wanted
            right_length += bool(best) and any(len(w) == len(best) for w in wanted)
        report[path.name] = {"questions": len(chosen), "best_path_right": round(right / len(chosen), 3),
                             "best_path_length_right": round(right_length / len(chosen), 3)}
    store.close()
    print(json.dumps({"memory": str(args.memory), "sample": args.sample, "seed": args.seed, "files": report}))


if __name__ == "__main__":
    main()
