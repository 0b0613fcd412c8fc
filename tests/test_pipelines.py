"""What the baseline pipelines show the model and how they read its replies."""

from __future__ import annotations

from agent.answer_text import read_answers
from agent.pipelines.facts import facts_of
from kg_store import UNNAMED, Subgraph, Triple


def test_answer_lines_are_read_and_comma_lists_split() -> None:
    assert read_answers("ans: The Rage, Toy Soldiers\nans: Toy Soldiers") == ["The Rage", "Toy Soldiers"]
    assert read_answers("Sure!\n1. ans: Action; Drama.") == ["Action", "Drama"]
    # A model that ignores the format still said something: its first line.
    assert read_answers("Tom Hanks\nbecause...") == ["Tom Hanks"]
    assert read_answers("") == []


def test_names_with_commas_stay_whole() -> None:
    assert read_answers("ans: Martin Luther King, Jr") == ["Martin Luther King, Jr"]
    assert read_answers("ans: Austin, Texas") == ["Austin", "Texas"]
    # ... unless the pipeline showed the model that very name.
    assert read_answers("ans: Austin, Texas", ["Austin, Texas"]) == ["Austin, Texas"]


def test_a_shown_name_copied_with_a_typo_is_read_as_that_name() -> None:
    shown = ["Gujarati Language", "Tamil-GB", "Vietnamese Language"]
    assert read_answers("Gujararati Language\nTamil-GB", shown) == ["Gujarati Language"]
    assert read_answers("ans: Vietnamse Language; Tamil-GB", shown) == ["Vietnamese Language", "Tamil-GB"]
    # Another name, not a typo: a different first letter, a short word, another word count,
    # or two shown names equally near.
    assert read_answers("ans: John Kerry", ["John Berry"]) == ["John Kerry"]
    assert read_answers("ans: Rocky II", ["Rocky III", "Rocky"]) == ["Rocky II"]
    assert read_answers("ans: Gujararati", shown) == ["Gujararati"]
    assert read_answers("ans: Anna Karenina", ["Anna Karenine", "Anna Kareninb"]) == ["Anna Karenina"]
    assert read_answers("ans: Gujararati Language") == ["Gujararati Language"]


def test_edges_through_an_unnamed_node_become_one_line() -> None:
    triples = [
        Triple("m.hanks", "film.actor.film", "m.cvt1"),
        Triple("m.cvt1", "film.performance.film", "m.gump"),
        Triple("m.cvt1", "film.performance.character", "m.forrest"),
        Triple("m.gump", "film.film.directed_by", "m.zemeckis"),
        Triple("m.lonely", "people.person.place_of_birth", "m.cvt2"),  # a CVT with one edge
    ]
    names = {"m.hanks": "Tom Hanks", "m.gump": "Forrest Gump", "m.forrest": "Forrest", "m.zemeckis": "Robert Zemeckis",
             "m.lonely": "Lonely", "m.cvt1": None, "m.cvt2": None}
    facts = {f.text: f for f in facts_of(Subgraph(["m.hanks"], triples, names))}
    assert set(facts) == {
        "Forrest Gump -> film.film.directed_by -> Robert Zemeckis",
        f"Tom Hanks -> film.actor.film -> {UNNAMED} -> film.performance.film -> Forrest Gump",
        f"Tom Hanks -> film.actor.film -> {UNNAMED} -> film.performance.character -> Forrest",
        f"Forrest Gump <- film.performance.film <- {UNNAMED} -> film.performance.character -> Forrest",
        f"Lonely -> people.person.place_of_birth -> {UNNAMED}",
    }
    merged = facts[f"Tom Hanks -> film.actor.film -> {UNNAMED} -> film.performance.film -> Forrest Gump"]
    assert merged.entities == ("m.hanks", "m.gump") and len(merged.triples) == 2
