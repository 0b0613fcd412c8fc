"""`bench/hub_walks.py`: the questions whose walks a capped hub's missing relations change."""

from __future__ import annotations

from pathlib import Path

from loaders.questions import read_questions
from tests.bench_fixture import metaqa_store, run_bench

# Tom Hanks has five films through three relations: a cap of 2 keeps at most two of them.
KB = """Big|starred_actors|Tom Hanks
Splash|starred_actors|Tom Hanks
Cast Away|starred_actors|Tom Hanks
That Thing You Do|directed_by|Tom Hanks
Larry Crowne|written_by|Tom Hanks
Big|directed_by|Penny Marshall
"""
QUESTIONS = """what films did [Tom Hanks] direct\tThat Thing You Do
who directed [Big]\tPenny Marshall
"""


def test_only_the_walks_through_a_capped_hub_with_more_relations_differ(tmp_path: Path) -> None:
    store, questions = metaqa_store(tmp_path, KB, QUESTIONS)
    report = run_bench("hub_walks.py", "--questions", str(questions), "-f", "metaqa", "--store", store, "--limit", "2",
                       "--json")
    hub_question = read_questions(questions, "metaqa").questions[0]
    assert (report["selected"], report["walks_differ"]) == (2, 1)  # Big has two edges: never capped
    assert report["differ"] == [{"id": hub_question.id, "question": hub_question.text}]
