"""`bench/memory_match.py`: how often a memory's best path for a question is the labelled one."""

from __future__ import annotations

from pathlib import Path

from agent.pog.memory import MemoryEntry
from loaders.questions import read_questions
from tests.bench_fixture import metaqa_store, run_bench

KB = """Big|starred_actors|Tom Hanks
Big|directed_by|Penny Marshall
Big|release_year|1988
Awakenings|directed_by|Penny Marshall
"""
QUESTIONS = """what films did [Tom Hanks] star in\tBig
who directed [Big]\tPenny Marshall
what movies did [Penny Marshall] direct\tBig|Awakenings
"""
# Written questions for four sequences; the last two the topics cannot walk.
WRITTEN = [("what are the movies X starred in", [("starred_actors", False)]),
           ("who directed X", [("directed_by", True)]),
           ("what are the movies directed by X", [("directed_by", False)]),
           ("what year was X released", [("release_year", True)])]


def entries(items: list[tuple[str, list[tuple[str, bool]]]], *, ids: list[str], synthetic: bool) -> str:
    return "".join(MemoryEntry(question_id=i, question=text, paths=[list(path)], depth=len(path),
                               synthetic=synthetic).model_dump_json() + "\n" for i, (text, path) in zip(ids, items))


def test_the_best_path_is_counted_against_the_labelled_one(tmp_path: Path) -> None:
    store, questions = metaqa_store(tmp_path, KB, QUESTIONS)
    ids = [q.id for q in read_questions(questions, "metaqa").questions]
    (tmp_path / "synth.jsonl").write_text(entries(WRITTEN, ids=[f"synthetic:{i}" for i in range(4)], synthetic=True))
    # the labels: right for the first two questions, a wrong sequence of the right length for the third
    labels = [WRITTEN[0], WRITTEN[1], ("", [("release_year", False)])]
    (tmp_path / "labelled.jsonl").write_text(entries(labels, ids=ids, synthetic=False))
    report = run_bench("memory_match.py", "--memory", str(tmp_path / "synth.jsonl"), "--reference",
                       str(tmp_path / "labelled.jsonl"), "--store", store, "--questions", str(questions), "--sample", "3",
                       "--json")["files"]["qa_dev_1hop.txt"]
    assert report == {"questions": 3, "best_path_right": round(2 / 3, 3), "best_path_length_right": 1.0}
