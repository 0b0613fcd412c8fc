"""Metrics against hand-worked cases."""

from __future__ import annotations

import pytest

from agent.answer_text import normalize
from agent.evaluation.metrics import covered, f1, hit, hits_at_1, lenient_match, matches


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The Eiffel Tower!", "eiffel tower"),
        ("  A  man, a plan ", "man plan"),
        ("Théâtre", "theatre"),  # accents go, as in the store's entity search
        ("O'Brien–Smith", "o brien smith"),  # any punctuation, not only ASCII
        ("an apple an hour", "apple hour"),
        ("Thea", "thea"),  # "the" only as a word
        ("A", "a"),  # a name that is all articles stays a name (the ampere's symbol)
        ("", ""),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


def test_match_is_the_whole_name_or_a_whole_listed_item() -> None:
    assert matches("The Eiffel Tower!", "eiffel tower")
    assert matches("the Eiffel Tower, Paris", "Eiffel Tower")  # one item of a listed answer
    assert not matches("Eiffel", "Eiffel Tower")
    assert matches("Amelie", "Amélie") and matches("Amélie (film)", "amelie film")
    assert not matches("anything", "the") and not matches("anything", "")  # never an empty gold
    assert matches("A", "A") and not matches("m", "A")  # the ampere's symbol is a name like any
    # token boundaries and whole names: a gold inside a longer name is another thing
    assert not matches("French", "r")
    assert not matches("The Music Lovers", "Music")
    assert not matches("Romeo and Juliet", "Romeo")


def test_the_lenient_figure_is_pog_substring_check() -> None:
    assert lenient_match("The Music Lovers", ["Music"]) == 1.0  # counted there, labelled lenient
    assert lenient_match("French", ["r"]) == 1.0


def test_hits_at_1_looks_at_the_first_prediction_only() -> None:
    assert hits_at_1(["Paris", "Lyon"], ["paris"]) == 1.0
    assert hits_at_1(["Lyon", "Paris"], ["paris"]) == 0.0
    assert hits_at_1([], ["paris"]) == 0.0


def test_hit_is_any_prediction() -> None:
    assert hit(["Lyon", "Paris"], ["paris"]) == 1.0
    assert hit(["Lyon"], ["paris", "marseille"]) == 0.0
    assert hit([], ["x"]) == 0.0


def test_f1_multi_answer() -> None:
    # 2 of 3 predictions are right; 2 of 4 golds are found: P = 2/3, R = 1/2, F1 = 4/7.
    assert f1(["Paris", "Lyon", "Oslo"], ["paris", "lyon", "nice", "metz"]) == pytest.approx(4 / 7)
    assert f1(["Paris", "Lyon"], ["lyon", "paris"]) == 1.0
    assert f1([], ["paris"]) == 0.0
    assert f1(["paris"], []) == 0.0
    # One prediction listing two golds: precision stays within [0, 1].
    assert f1(["Paris, Lyon"], ["paris", "lyon"]) == 1.0


def test_coverage_and_lenient() -> None:
    assert covered(["Forrest Gump", "Tom Hanks"], ["tom hanks"]) == 1.0
    assert covered(["Tom Hanks Jr"], ["tom hanks"]) == 0.0  # coverage is exact, not substring
    assert lenient_match("I think the answer is {Robert Zemeckis}.", ["Robert Zemeckis"]) == 1.0
    assert lenient_match("no idea", ["Robert Zemeckis"]) == 0.0


def test_old_results_are_rescored_under_todays_metric(tmp_path) -> None:
    """A row written when matching was a bare substring ("Music" in "The Music Lovers")
    counts as wrong in every table made today."""
    import json

    from typer.testing import CliRunner

    from agent.evaluation.report import rescored
    from kgqa.cli import app

    old = {"id": "q1", "prediction": ["The Music Lovers"], "gold": ["Music"], "hits1": 1.0, "hit": 1.0, "f1": 1.0,
           "coverage": 1.0, "lenient_em": 1.0, "raw_output": "The Music Lovers", "llm_calls": 2, "seconds": 3.0,
           "llm_seconds": 2.5, "llm_cache_hits": 0, "error": None}
    (row,) = rescored([old])
    assert (row["hits1"], row["hit"], row["f1"], row["lenient_em"]) == (0.0, 0.0, 0.0, 1.0)
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(old) + "\n" + json.dumps({**old, "id": "q2", "prediction": ["Music"]}) + "\n")
    shown = CliRunner().invoke(app, ["table", f"old run={path}"])
    assert shown.exit_code == 0, shown.output
    assert "| old run | 2 | 0.500 | 0.500 | 0.500 | 1.000 | 1.000 | 2.00 |" in shown.output
