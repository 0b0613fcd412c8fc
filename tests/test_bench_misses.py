"""`bench/misses.py`: a run's ceiling, the misses no walk from the topic could answer."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from loaders.questions import read_questions
from tests.bench_fixture import metaqa_store, run_bench

KB = """Big|directed_by|Penny Marshall
Big|starred_actors|Tom Hanks
Splash|directed_by|Ron Howard
Splash|starred_actors|Tom Hanks
"""
QUESTIONS = """who directed [Big]\tPenny Marshall
who directed [Splash]\tRon Howard
who wrote [Splash]\tBruce Jay Friedman
who directed the films [Tom Hanks] starred in\tRon Howard
"""


def _run(tmp_path: Path, depth: int) -> dict:
    store, questions = metaqa_store(tmp_path, KB, QUESTIONS, "qa.txt")
    hit, reachable_miss, unreachable_miss, two_hops = read_questions(questions, "metaqa").questions
    rows = [  # the second is missed although the walk reaches Ron Howard; the third's gold is nowhere in the KB;
        # the fourth's gold is two hops from Tom Hanks
        {"id": hit.id, "prediction": ["Penny Marshall"], "gold": ["Penny Marshall"]},
        {"id": reachable_miss.id, "prediction": ["Tom Hanks"], "gold": ["Ron Howard"]},
        {"id": unreachable_miss.id, "prediction": ["Ron Howard"], "gold": ["Bruce Jay Friedman"]},
        {"id": two_hops.id, "prediction": ["Big"], "gold": ["Ron Howard"]},
    ]
    with gzip.open(tmp_path / "run.jsonl.gz", "wt") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    return run_bench("misses.py", "--run", str(tmp_path / "run.jsonl.gz"), "--questions", str(questions), "-f", "metaqa",
                     "--store", store, "--depth", str(depth), "--json")


def test_a_miss_is_unreachable_only_when_no_walk_from_the_topic_names_a_gold_answer(tmp_path: Path) -> None:
    one_hop = _run(tmp_path, depth=1)
    ids = [q.id for q in read_questions(tmp_path / "qa.txt", "metaqa").questions]
    assert (one_hop["questions"], one_hop["misses"], one_hop["hits1"]) == (4, 3, 0.25)
    assert one_hop["unreachable_ids"] == [ids[2], ids[3]] and one_hop["ceiling"] == 0.5
    assert _run(tmp_path, depth=2)["unreachable_ids"] == [ids[2]]  # Tom Hanks -> Splash -> Ron Howard
