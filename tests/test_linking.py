"""Linking a raw question to the graph: which words of it name an entity, and which one."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.evaluation.run import EvalPlan, selected_questions
from agent.linking import link_question, mention_span, places_of_people, question_spans
from kg_store import LoadBatch, Triple
from kg_store.memory import MemoryStore


def store_of(names: dict[str, str], triples: list[tuple[str, str, str]] = ()) -> MemoryStore:
    store = MemoryStore()
    store.write(LoadBatch(triples=[Triple(*t) for t in triples], names=list(names.items())))
    return store


def first(store: MemoryStore, question: str) -> str | None:
    links = link_question(store, question)
    return links[0].id if links else None


def test_the_longest_name_in_the_question_wins_over_the_names_inside_it() -> None:
    store = store_of({"e1": "Tom Hanks", "e2": "Tom", "e3": "The Battle of Britain", "e4": "Battle of Britain"})
    assert first(store, "what movies did tom hanks star in") == "e1"
    assert first(store, "who directed The Battle of Britain") == "e3"
    assert first(store, "who directed Battle of Britain") == "e4"


def test_a_name_capitalised_in_the_question_beats_a_common_word_that_is_also_a_name() -> None:
    store = store_of({"tag": "writer", "film": "Zookeeper"})
    assert first(store, "the films written by the writer of Zookeeper starred who") == "film"


def test_possessives_are_tried_with_and_without_their_s() -> None:
    store = store_of({"s": "Utah", "f": "Joe's Palace"})
    assert first(store, "what is utah's state capitol?") == "s"
    assert first(store, "who was the director of Joe's Palace") == "f"


def test_part_of_a_name_counts_by_whole_words_and_less_when_many_names_share_it() -> None:
    people = {f"p{i}": f"{nation} people" for i, nation in enumerate(("Irish", "French", "Welsh", "Jewish", "Thai"))}
    store = store_of({"bih": "Bosnia and Herzegovina", "de": "Germany", **people})
    links = link_question(store, "what language do people from bosnia speak?")
    assert links[0].id == "bih" and not links[0].whole  # "bosnia" is part of one name; "people" of five
    assert first(store, "how many languages are there") is None  # "many" is inside "Germany", not a word of it


def test_a_word_of_the_graphs_relations_is_the_relation_asked_about_not_the_topic() -> None:
    # "Country" (the music genre) is better connected than Burundi: only the relation vocabulary tells them apart
    store = store_of({"genre": "Country", "bi": "Burundi", "x": "Gitega"},
                     [("bi", "location.country.capital", "x"), *(("genre", "music.genre.artists", f"a{i}") for i in range(3))])
    assert first(store, "where is burundi country?") == "bi"


def test_stop_words_at_the_edge_of_a_span_do_not_make_part_of_a_name_look_rare() -> None:
    # "in the united states" is part of two names, "united states" of four: the same content words, one penalty
    store = store_of({"us": "United States of America", "att": "Attorneys in the United States",
                      "nat": "Native Americans in the United States", "pres": "President of the United States"},
                     [("us", "contains", f"s{i}") for i in range(3)])
    assert first(store, "what type of religions are in the united states?") == "us"


def test_the_people_of_a_place_are_asked_about_through_the_place() -> None:
    store = store_of({"br": "Brazil", "co": "Colombia", "pt": "Portuguese Language", "cob": "Colombian Open"},
                     [("br", "official_language", "pt"), ("co", "official_language", "es")])
    assert first(store, "what language do brazilians use?") == "br"
    assert first(store, "what language do colombian people speak?") == "co"
    assert ("russians", "russia") in places_of_people("what do russians speak")
    assert ("Maltese people", "malta") not in places_of_people("Maltese people")  # only the demonym is the span
    assert places_of_people("who plays in the band") == []


def test_entities_that_share_a_name_all_stay_candidates_the_better_connected_first() -> None:
    store = store_of({"emma1": "Emma", "emma2": "Emma", "a": "Jane Austen", "b": "Douglas McGrath"},
                     [("emma1", "written_by", "a"), ("emma1", "directed_by", "b"), ("emma2", "written_by", "a")])
    links = link_question(store, "who directed Emma")
    assert [link.id for link in links[:2]] == ["emma1", "emma2"] and links[0].degree == 2


def test_spans_skip_runs_of_stop_words_and_go_longest_first() -> None:
    spans = question_spans("who is the director of Big")
    assert spans[0] == "who is the director of Big" and "Big" in spans
    assert "who is the" not in spans and "of" not in spans


def test_eval_link_withholds_the_topic_entities(tmp_path: Path) -> None:
    questions = tmp_path / "qa_dev_1hop.txt"
    questions.write_text("who directed [Movie A]\tPerson B\n")
    given, _ = selected_questions(EvalPlan(questions, "metaqa", "pog", tmp_path / "r.jsonl"))
    linked, gold = selected_questions(EvalPlan(questions, "metaqa", "pog", tmp_path / "r.jsonl", link=True))
    assert [t.id for t in given[0].topic_entities] == ["Movie A"]
    assert linked[0].topic_entities == () and linked[0].text == "who directed Movie A"  # no ids, no brackets
    assert gold[linked[0].id].answers == ("Person B",)


def test_the_word_after_what_names_the_kind_of_answer_not_the_topic() -> None:
    store = store_of({"a-lang": "Language", "z-ch": "Switzerland"})  # alike but for the question: the id breaks ties
    assert first(store, "what language do they speak in switzerland?") == "z-ch"
    assert first(store, "which kind of language is spoken in switzerland?") == "z-ch"
    assert first(store, "where is language spoken in switzerland") == "a-lang"  # no "what": the tie stands
    assert first(store, "what is language") == "a-lang"  # nothing else named: the word still links


@pytest.mark.parametrize(("question", "name", "mention"), [
    ("what form of government is the uk?", "United Kingdom", "uk"),
    ("where was the prophet mohammed from?", "Muhammad", "mohammed"),
    ("what other movies is josh hutcherson in?", "Josh Hutchersonm", "josh hutcherson"),
    ("what college did jrr tolkien go to?", "J. R. R. Tolkien", "jrr tolkien"),
    ("who plays eowyn in lord of the rings?", "The Lord of the Rings: The Return of the King", "lord of the rings"),
    ("what is utah's state capitol?", "Utah State Capitol", "utah's state capitol"),
])
def test_a_question_names_an_entity_in_words_other_than_its_name(question: str, name: str, mention: str) -> None:
    span = mention_span(question, name)
    assert span is not None and question[span[0]:span[1]] == mention


def test_the_words_a_name_shares_with_the_graphs_relations_are_not_its_mention() -> None:
    question, vocabulary = "which language family is english in?", frozenset({"language", "family"})
    assert question[slice(*mention_span(question, "English Language", vocabulary))] == "english"
    assert question[slice(*mention_span(question, "English Language"))] == "language"  # what the vocabulary prevents
    assert mention_span("what is the official language of france?", "English Language", vocabulary) is None
    assert mention_span("who is the father of peyton manning?", "Male") is None  # short words are never respelt


def test_another_spelling_of_a_relation_word_in_a_name_is_not_its_mention() -> None:
    """CWQ gives the CVT type "Marriage" as a topic of "where did Seal and Heidi Klum get
    married": masking "married" took the one word that says which relation is asked."""
    question, vocabulary = "In which country did Seal and the Victoria's Secret Party Host get married?", \
        frozenset({"marriage", "spouse"})
    assert mention_span(question, "Marriage", vocabulary) is None
    assert question[slice(*mention_span(question, "Marriage"))] == "married"  # what the vocabulary prevents
    other = "where was the prophet mohammed from?"  # a respelt name word that is no relation's
    assert other[slice(*mention_span(other, "Muhammad", vocabulary))] == "mohammed"


def test_every_topic_a_typed_question_names_is_kept() -> None:
    """`link_question` kept one topic, which undid PoG's several-topic design for every
    chat and `--link` question asked without brackets."""
    from agent.linking import link_question, topics_named
    from tests.pog_fixture import film_store

    store = film_store()
    for question in ("which films did Tom Hanks make with Kevin Bacon", "which films did tom hanks make with kevin bacon"):
        assert [k.name for k in topics_named(link_question(store, question, limit=10))] == ["Tom Hanks", "Kevin Bacon"]
    # a part of a taken name, or a common word that is some entity's name, is no second topic
    assert [k.name for k in topics_named(link_question(store, "which drama films did Tom Hanks star in"))] == [
        "Tom Hanks"]


def test_a_question_naming_two_topics_is_answered_where_their_paths_meet() -> None:
    from agent.embeddings import Embedder
    from agent.pog.config import PoGConfig
    from agent.pog.context import PoGContext
    from agent.pog.graph import run_question
    from tests.pog_fixture import analysis, film_store, scripted

    llm = scripted(analyse=analysis(1), answer="ans: Apollo 13")
    context = PoGContext(film_store(), llm, Embedder(), PoGConfig())
    state = run_question(context, "which films did Tom Hanks make with Kevin Bacon", [])
    assert [t.id for t in state["topics"]] == ["Tom Hanks", "Kevin Bacon"]
    assert state["answers"] == ["Apollo 13"] and state["answer_path"].joins


def test_a_given_name_no_entity_has_but_entities_hold_as_a_value_is_that_value() -> None:
    from agent.linking import held_values
    from kg_store import Attribute
    from kg_store.model import value_node
    from kg_store.paths import NeighborCache

    store = store_of({"el73": "Tantalum", "e2": "In"})
    store.write(LoadBatch(attributes=[Attribute("el73", "symbol", "Ta"), Attribute("el49", "symbol", "In")]))
    found = held_values(store, NeighborCache(store, values=True), ["Ta", "In", "Xx"])
    assert {m: e.id for m, e in found.items()} == {"Ta": value_node("Ta")}  # "In" names an entity: linked by name
    assert held_values(store, NeighborCache(store), ["Ta"]) == {}  # a walk without values has no value topics


@pytest.mark.parametrize(("question", "mentions"), [
    ("which element has atomic number 52?", ["52"]), ("who was born on 1815-12-10", ["1815-12-10"]),
    ("films of 1999, rated 2.5 stars", ["1999", "2.5"]), ("which country has calling code +33", ["+33"]),
    ("who discovered the element with symbol Ta?", ["Ta"]), ("Which country uses FR", ["FR"]),
    ("who wrote Tom Hanks 's films", []),  # a linked name's words are no value
])
def test_the_values_a_question_may_name(question: str, mentions: list[str]) -> None:
    from agent.linking import value_mentions

    assert value_mentions(question, link_question(store_of({"e1": "Tom Hanks"}), question)) == mentions
