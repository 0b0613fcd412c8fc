"""A path memory from the graph alone: discovery, the model's descriptions checked, the
questions written, resuming, and the memory it makes ranking paths with no labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.embeddings import Embedder
from agent.llm import FakeLLM
from agent.llm.base import Message
from agent.pog.memory import MemoryEntry, PathMemory, read_entries
from agent.pog.synthesis import (
    FoundSequence,
    Kind,
    PhraseCheck,
    SynthesisOptions,
    describe,
    discover,
    kinds_of,
    questions_for,
    synthesize,
    template_description,
)
from kg_store.paths import NeighborCache
from tests.pog_fixture import film_store

OPTIONS = SynthesisOptions(max_depth=2, per_kind=6, min_seeds=1)  # the fixture has one Freebase actor
ACTED_IN = (("starred_actors", False),)
DIRECTORS_OF_FILMS = (("starred_actors", False), ("directed_by", True))


def describer(messages: list[Message]) -> str:
    """A scripted model that describes relations the way the 0.5B model does when it
    gets them right, and names kinds of entity."""
    asked = messages[-1]["content"]
    system = messages[0]["content"]
    if "what kind of things" in asked.lower():
        items = asked.rsplit(":", 1)[1]
        return "movies" if any(f in items for f in ("Big", "Splash", "Apollo 13", "Cocoon", "Footloose", "Comedy Film"))\
            else "people"
    head, relation, _ = (part.strip() for part in asked.removeprefix("Fact:").split("|"))
    if "noun phrase" in system:
        return {"directed by": f"the director of {head}", "starred actors": f"the actors of {head}"}.get(
            relation, f"the {relation} of {head}")
    return {"directed by": f"Who directed {head}?", "starred actors": f"Who starred in {head}?"}.get(
        relation, f"What is the {relation} of {head}?")


def test_discovery_finds_the_sequences_the_graph_has_with_their_kinds() -> None:
    store = film_store()
    sequences, kinds = discover(store, NeighborCache(store), OPTIONS)
    found = {s.steps for s in sequences}
    assert ACTED_IN in found and DIRECTORS_OF_FILMS in found
    assert (("directed_by", True), ("directed_by", False)) in found  # other films of the film's director
    # a Freebase CVT hop counts once and its name-less middle never ends a sequence
    assert (("film.actor.film", True), ("film.performance.film", True)) in found
    assert not any(s.steps == (("film.actor.film", True),) for s in sequences)
    assert all(len(s.example) == len(s.hops) + 1 for s in sequences)
    films = next(k for k in kinds if ("directed_by", True) in k.sides)
    assert ("starred_actors", True) in films.sides and ("directed_by", False) not in films.sides
    # the same seed, the same result
    assert [s.steps for s in discover(store, NeighborCache(store), OPTIONS)[0]] == [s.steps for s in sequences]


def test_a_relation_every_kind_of_entity_has_does_not_make_them_one_kind() -> None:
    gender, acted, category, listed = (("gender", True), ("actor.film", True), ("award.category_of", True),
                                       ("taxonomy.entry", True))
    people = {f"person{i}": [gender, *([acted] if i < 5 else []), *([listed] if i < 3 else [])] for i in range(10)}
    awards = {f"award{i}": [category, *([listed] if i < 3 else [])] for i in range(10)}
    seeds = {**people, **awards}
    kinds = kinds_of(seeds, {seed: seed for seed in seeds})
    kind_of = {side: tuple(kind.sides) for kind in kinds for side in kind.sides}
    assert kind_of[acted] == kind_of[gender]  # every sampled actor is a person
    assert kind_of[category] != kind_of[gender]  # three of each have a taxonomy entry: no bridge


def test_a_description_the_model_gets_wrong_falls_back_to_templates() -> None:
    hop = (("directed_by", True),)
    good = describe(FakeLLM(describer), hop, "Big", "Penny Marshall")
    assert (good.question, good.phrase, good.noun) == ("Who directed {}", "the director of {}", "director")
    # a reply that names the answer, or not the known entity, is not used (twice: the retry is sampled)
    wrong = describe(FakeLLM(["Who directed Big, Penny Marshall?", "Who is Penny Marshall?",
                              "the director", "the director"]), hop, "Big", "Penny Marshall")
    assert wrong.model_dump() == template_description(hop).model_dump()
    assert wrong.question == "what is the directed by of {}"


def test_a_phrase_that_names_another_relation_of_the_same_heads_is_not_used() -> None:
    """The 0.5B model echoed its prompt's example for `discovered_by` ("the country of
    Potassium"): every question written through that phrase asks for a country. A phrase
    is kept where its noun names its own relation (its words or its tails' kind) at least
    as well as any other relation of the same heads."""
    by, found_in, producer = (("discovered_by", True),), (("discovered_in", True),), (("top_producer", True),)
    elements = Kind([by[0], found_in[0], producer[0]], ["Potassium"], "elements")
    kinds = [elements, Kind([("discovered_by", False)], ["Humphry Davy"], "people"),
             Kind([("discovered_in", False), ("top_producer", False)], ["England"], "countries")]
    check = PhraseCheck(Embedder(), [by, found_in, producer], kinds)
    assert check.names_another(by, "country") and not check.names_another(by, "discoverer")
    assert not check.names_another(found_in, "country")  # its tails are countries
    assert not check.names_another(producer, "country")  # so are these: alike for both, kept by both
    echoed = describe(FakeLLM(["Who discovered Potassium?", "the country of Potassium", "the country of Potassium"]),
                      by, "Potassium", "Humphry Davy", lambda noun: check.names_another(by, noun))
    assert (echoed.question, echoed.phrase) == ("Who discovered {}", "the discovered by of {}")
    retried = describe(FakeLLM(["Who discovered Potassium?", "the country of Potassium", "the discoverer of Potassium"]),
                       by, "Potassium", "Humphry Davy", lambda noun: check.names_another(by, noun))
    assert retried.phrase == "the discoverer of {}"


def test_a_verb_relation_written_backwards_is_asked_by_its_own_verb() -> None:
    """The 0.5B model writes `Italy | contains | ___` as "Which country contains Italy?",
    the question for the reverse hop: the memory would answer "where is X" with what X
    contains. Such a reply is replaced by the verb's template, and the reverse hop asks
    with the verb too. A type named as its domain (`location.location`) is not shown."""
    contains = (("location.location.contains", True),)
    shown: list[str] = []
    inverted = describe(FakeLLM(lambda messages: shown.append(messages[-1]["content"]) or "Which country contains Italy?"),
                        contains, "Italy", "Rome")
    assert shown == ["Fact: Italy | contains | ___"]  # one call: no retry, no phrase asked
    assert (inverted.question, inverted.phrase, inverted.object_verb) == ("what does {} contain", "what {} contains", "contain")
    assert "question" not in inverted.from_llm
    partly = (("location.location.partially_contains", True),)
    assert describe(FakeLLM(["What partially contains Iowa?", "the rivers of Iowa"]), partly, "Iowa",
                    "Missouri River").question == "what does {} partially contain"
    # a phrase naming the head's own kind ("the film written by Big" for the writer) is not used
    written_by = describe(FakeLLM(["Who wrote Big?", "the film written by Big", "the film written by Big"]),
                          (("film.film.written_by", True),), "Big", "Nora Ephron")
    assert (written_by.question, written_by.phrase) == ("Who wrote {}", "the written by of {}")
    # the right direction is kept, and a plural noun's name is no verb
    kept = describe(FakeLLM(["What places are in Italy?", "the places in Italy"]), contains, "Italy", "Rome")
    assert kept.question == "What places are in {}"
    genres = (("film.film.genre", True),)
    assert describe(FakeLLM(["What is the genre of Big?", "the genre of Big"]), genres, "Big",
                    "Comedy").question == "What is the genre of {}"
    nouns = {("location.location.contains", True): "locations", ("location.location.contains", False): "locations"}
    where = FoundSequence((("location.location.contains", False),), ((("location.location.contains", False),),), 1.0,
                          ("Rome", "Italy"))
    written = questions_for(where, {contains: inverted}, nouns)
    assert {"which locations contain X", "what contains X"} <= set(written)
    inside = FoundSequence(contains, (contains,), 1.0, ("Italy", "Rome"))
    assert "what does X contain" in questions_for(inside, {contains: inverted}, nouns)


def test_questions_nest_the_descriptions_and_reverse_hops_reuse_their_verbs() -> None:
    sequence = FoundSequence(DIRECTORS_OF_FILMS, ((DIRECTORS_OF_FILMS[0],), (DIRECTORS_OF_FILMS[1],)), 1.0,
                             ("Tom Hanks", "Big", "Penny Marshall"))
    descriptions = {(("starred_actors", True),): describe(FakeLLM(describer), (("starred_actors", True),), "Big",
                                                          "Tom Hanks"),
                    (("directed_by", True),): describe(FakeLLM(describer), (("directed_by", True),), "Big",
                                                       "Penny Marshall")}
    nouns = {("starred_actors", True): "movies", ("directed_by", True): "movies", ("starred_actors", False): "people"}
    written = questions_for(sequence, descriptions, nouns)
    assert "Who directed the movies X starred in" in written
    assert "Who directed the movies whose actor is X" in written
    assert "Who directed the movies starred by X" in written  # a reverse hop read as its participle too
    assert "Who directed the movies the person X starred in" in written  # the topic with its kind
    assert all("X" in text and "Tom Hanks" not in text for text in written)
    co_actors = FoundSequence((("starred_actors", False), ("starred_actors", True)),
                              ((("starred_actors", False),), (("starred_actors", True),)), 1.0, ("A", "Big", "B"))
    assert "who starred in the same movies as X" in questions_for(co_actors, descriptions, nouns)
    # a relation walked there and back is asked both as sharing and nested ("the director of X also directed")
    same_director = FoundSequence((("directed_by", True), ("directed_by", False)),
                                  ((("directed_by", True),), (("directed_by", False),)), 1.0, ("Big", "P", "Cocoon"))
    assert {"which movies share the director with X", "what other movies did the director of X directed",
            "what are the movies directed by the director of X"} <= set(questions_for(same_director, descriptions, nouns))


def test_a_reverse_hop_over_a_typed_relation_name_is_written_as_the_heads_type() -> None:
    """From a person, `~people.cause_of_death.people` reaches "the cause of death of X";
    through a CVT, `~education.education.student / ~...students_graduates` reaches "the
    educational institution of X", and asks "which educational institutions ...". Untyped
    names (MetaQA's) write what they did."""
    from kg_store.ids import head_type_words

    assert head_type_words("people.cause_of_death.people") == "cause of death"
    assert head_type_words("/education/educational_institution/students_graduates") == "educational institution"
    assert head_type_words("directed_by") is None
    assert head_type_words("http://dbpedia.org/ontology/birthPlace") is None
    died_of = (("people.cause_of_death.people", False),)
    sequence = FoundSequence(died_of, (died_of,), 1.0, ("George Orwell", "Tuberculosis"))
    written = questions_for(sequence, {}, {("people.cause_of_death.people", True): "people"})
    assert "what is the cause of death of X" in written
    school = (("education.education.student", False), ("education.educational_institution.students_graduates", False))
    walked = FoundSequence(school, (school,), 1.0, ("Michael Jordan", "University of North Carolina"))
    to_school = questions_for(walked, {}, {})
    assert "what is the educational institution of X" in to_school
    # and asked for as that type, not as the model's name for the kind (it called them "countries")
    nouns = {("education.educational_institution.students_graduates", True): "countries"}
    assert not any("countries" in text for text in questions_for(walked, {}, nouns))
    assert any(text.startswith("which educational institutions ") for text in to_school)
    assert any(text.startswith("which causes of death ") for text in written)
    untyped = questions_for(FoundSequence(ACTED_IN, (ACTED_IN,), 1.0, ("Tom Hanks", "Big")), {}, {})
    assert not any(text.startswith("what is the ") for text in untyped)


def test_no_benchmark_phrasing_is_written_in() -> None:
    """The questions come from the relation's name and the model's description, never
    from a benchmark's templates: MetaQA's "which words describe X", "which movies can be
    described by X", "the director of X also directed which movies" and "who directed
    movies together with X" were written in once, and 22 of its 526 dev templates were
    found word for word in the memory. Tags are asked for as the model names them."""
    tags, tagged = (("has_tags", True),), (("has_tags", False),)
    nouns = {("has_tags", True): "movies", ("directed_by", True): "movies", ("directed_by", False): "people"}
    described = {DIRECTOR: describe(FakeLLM(describer), DIRECTOR, "Big", "Penny Marshall")}
    written = [*questions_for(FoundSequence(tags, (tags,), 1.0, ("Ocean Waves", "studio ghibli")), {}, nouns),
               *questions_for(FoundSequence(tagged, (tagged,), 1.0, ("4", "Shrek 2")), {}, nouns),
               *questions_for(FoundSequence(SHARING_THE_DIRECTOR, tuple((s,) for s in SHARING_THE_DIRECTOR), 1.0,
                                            ("Big", "P", "Cocoon")), described, nouns),
               *questions_for(FoundSequence(tuple(reversed(SHARING_THE_DIRECTOR)),
                                            tuple((s,) for s in reversed(SHARING_THE_DIRECTOR)), 1.0,
                                            ("P", "Big", "Q")), described, nouns)]
    assert "what is the has tags of X" in written and "which movies have X as their has tag" in written
    assert not any(w in text for text in written for w in ("describe", "about", " also ", "together with"))


def test_synthesis_writes_synthetic_entries_resumes_and_never_reads_answers(tmp_path: Path) -> None:
    store, out = film_store(), tmp_path / "memory.jsonl"
    llm = FakeLLM(describer)
    report = synthesize(store, llm, Embedder(), out, OPTIONS)
    entries = read_entries(out)
    assert report.entries == len(entries) > 0 and report.llm_calls == len(llm.calls) > 0
    assert all(e.synthetic and e.question_id.startswith("synthetic:") and "X" in e.question for e in entries)
    assert {tuple(map(tuple, e.paths[0])): e.ends for e in entries}[DIRECTORS_OF_FILMS] == "people"  # the kind's noun
    assert {e.depth for e in entries} == {1, 2}
    # a second run finds everything in the work file: no model call, the same memory
    again = FakeLLM(lambda messages: pytest.fail("described twice"))
    assert synthesize(store, again, Embedder(), out, OPTIONS).entries == report.entries
    assert out.read_text() == "".join(e.model_dump_json() + "\n" for e in entries)
    # an interrupted run (the work file cut after discovery) describes only what is missing
    work = out.with_name(out.name + ".work.jsonl")
    records = work.read_text().splitlines()
    kept = [r for r in records if json.loads(r)["record"] != "noun"][:-1]
    work.write_text("\n".join(kept) + '\n{"record": "desc')  # and a torn last line
    resumed = FakeLLM(describer)
    synthesize(store, resumed, Embedder(), out, OPTIONS)
    assert 0 < len(resumed.calls) < len(llm.calls)
    assert read_entries(out) == entries
    with pytest.raises(ValueError, match="other settings"):
        synthesize(store, resumed, Embedder(), out, SynthesisOptions(max_depth=1))


def test_synthesis_writes_questions_that_end_at_literal_values(tmp_path: Path) -> None:
    from kg_store import Attribute, LoadBatch

    store, out = film_store(), tmp_path / "memory.jsonl"
    store.write(LoadBatch(attributes=[Attribute(film, "runtime", minutes) for film, minutes in
                                      (("Big", "104"), ("Splash", "111"), ("Apollo 13", "140"), ("Cocoon", "117"))]))
    synthesize(store, FakeLLM(describer), Embedder(), out, OPTIONS)
    steps = {tuple(map(tuple, path)) for e in read_entries(out) for path in e.paths}
    assert (("runtime", True),) in steps and (("starred_actors", False), ("runtime", True)) in steps
    assert not any(step == ("runtime", False) for path in steps for step in path)  # nothing walks on from a value
    without = tmp_path / "without.jsonl"
    synthesize(store, FakeLLM(describer), Embedder(), without, SynthesisOptions(max_depth=2, per_kind=6, min_seeds=1, values=False))
    assert not any(step[0] == "runtime" for e in read_entries(without) for path in e.paths for step in path)


def test_a_synthesised_memory_ranks_the_asked_relation_first(tmp_path: Path) -> None:
    store, out = film_store(), tmp_path / "memory.jsonl"
    synthesize(store, FakeLLM(describer), Embedder(), out, OPTIONS)
    embedder = Embedder()
    memory = PathMemory(read_entries(out), embedder)
    assert memory.synthetic
    person_steps = {("starred_actors", False)}
    acted = memory.prior(embedder.encode(["what movies did X act in"])[0], first_steps=person_steps)
    assert acted[0].steps == [list(s) for s in ACTED_IN] or tuple(map(tuple, acted[0].steps)) == ACTED_IN
    directed = memory.prior(embedder.encode(["who directed the movies X starred in"])[0], first_steps=person_steps)
    assert tuple(map(tuple, directed[0].steps)) == DIRECTORS_OF_FILMS
    assert sum(p.weight for p in directed) == pytest.approx(1.0, abs=0.01)


def test_a_synthesised_memory_reads_only_the_sequences_the_topic_has(tmp_path: Path) -> None:
    store, out = film_store(), tmp_path / "memory.jsonl"
    synthesize(store, FakeLLM(describer), Embedder(), out, OPTIONS)
    embedder = Embedder()
    memory = PathMemory(read_entries(out), embedder)
    reachable = memory.reachable(NeighborCache(store), ["Tom Hanks"], depth=2, max_frontier=100)
    assert ACTED_IN in reachable and DIRECTORS_OF_FILMS in reachable
    assert (("directed_by", True),) not in reachable  # a film's relation: Tom Hanks directed nothing here
    question = "what genres do the movies X starred in have"
    genres = memory.prior(embedder.encode([question])[0], question=question, reachable=reachable)
    assert tuple(map(tuple, genres[0].steps)) == (("starred_actors", False), ("has_genre", True))
    # what the topic cannot walk is never proposed, however well its questions match
    without = reachable - {(("starred_actors", False), ("has_genre", True))}
    assert all(tuple(map(tuple, p.steps)) in without
               for p in memory.prior(embedder.encode([question])[0], question=question, reachable=without))



FILM_STEPS = {("directed_by", True), ("starred_actors", True), ("release_year", True), ("has_genre", True)}
DIRECTOR = (("directed_by", True),)
SHARING_THE_DIRECTOR = (("directed_by", True), ("directed_by", False))


@pytest.fixture(scope="module")
def film_memory(tmp_path_factory: pytest.TempPathFactory) -> tuple[PathMemory, Embedder]:
    out = tmp_path_factory.mktemp("synthesised") / "memory.jsonl"
    synthesize(film_store(), FakeLLM(describer), Embedder(), out, OPTIONS)
    embedder = Embedder()
    return PathMemory(read_entries(out), embedder), embedder


def test_a_synthesised_memory_votes_only_for_sequences_ending_at_the_kind_asked_for() -> None:
    """"which elements come from the places where X made discoveries": the places'
    sequence's "where did the elements X discovered come from" reads closer than the
    elements' own, and won the vote (the elements dev KG's tuning part). Sequences that
    end at another kind than the one asked for do not vote where some sequence ends at
    it; without the kinds (a memory written before they were) the places win."""
    places = (("discovered_by", False), ("discovered_in", True))
    elements = (*places, ("discovered_in", False))

    def entry(number: int, text: str, chain: tuple, ends: str | None) -> MemoryEntry:
        return MemoryEntry(question_id=f"synthetic:{number}", question=text, paths=[list(chain)], depth=len(chain),
                           synthetic=True, support=1.0, ends=ends)

    written = [("where did the elements X discovered come from", places, "countries"),
               ("what is the country of the elements discovered by X", places, "countries"),
               ("which elements share the country with the elements X discovered", elements, "elements")]
    embedder = Embedder()
    question = "which elements come from the places where X made discoveries"

    def best(memory: PathMemory) -> tuple:
        return tuple(map(tuple, memory.prior(embedder.encode([question])[0], question=question)[0].steps))

    assert best(PathMemory([entry(i, *w) for i, w in enumerate(written)], embedder)) == elements
    assert best(PathMemory([entry(i, t, c, None) for i, (t, c, _) in enumerate(written)], embedder)) == places


@pytest.mark.parametrize(("question", "first_steps", "expected"), [
    ("who is the director that directed X", FILM_STEPS, DIRECTOR),  # ranked the siblings first without the rule
    ("which movies share the director with X", FILM_STEPS, SHARING_THE_DIRECTOR),
    ("the director of X also directed which movies", FILM_STEPS, SHARING_THE_DIRECTOR),
    ("who co-starred with X", {ACTED_IN[0]}, (ACTED_IN[0], ("starred_actors", True))),
])
def test_a_synthesised_memory_walks_back_to_the_topics_siblings_only_when_asked(
        film_memory: tuple[PathMemory, Embedder], question: str, first_steps: set, expected: tuple) -> None:
    """A path that walks its last relation back ends among the topic's siblings (the films
    that share X's director); its written questions contain the shorter path's ("the
    director of X"), so the sentence embeddings alone can rank it first for "who is the
    director that directed X" (MetaQA dev: a share of the synthesised memory's one-hop
    misses)."""
    memory, embedder = film_memory
    best = memory.prior(embedder.encode([question])[0], question=question, first_steps=first_steps)[0]
    assert tuple(map(tuple, best.steps)) == expected


PERSON_STEPS = {("starred_actors", False), ("directed_by", False)}


@pytest.mark.parametrize(("question", "first_steps", "expected"), [
    # asks for types, names the movies: not the movies (MetaQA dev 2-hop: "what types are the films directed by X")
    ("what types are the movies X starred in", {ACTED_IN[0]}, (ACTED_IN[0], ("has_genre", True))),
    ("what films did X star in", {ACTED_IN[0]}, ACTED_IN),  # asks for what it names: films are movies
    # the relation beside the topic comes first ("the films directed by X were written by who")
    ("the movies directed by X were starred by who", PERSON_STEPS, (("directed_by", False), ("starred_actors", True))),
    ("the movies directed by X starred which actors", PERSON_STEPS,
     (("directed_by", False), ("starred_actors", True))),
])
def test_a_synthesised_memory_reads_what_the_question_asks_for_and_where_it_starts(
        film_memory: tuple[PathMemory, Embedder], question: str, first_steps: set, expected: tuple) -> None:
    """A one-hop sequence's written question ("what are the movies X starred in") is all but
    contained in a two-hop question about those movies, and the words of "the films
    directed by X were written by who" are those of "who directed the films written by
    X": without the kind and first-relation costs the wrong sequence won each of these."""
    from agent.pog.config import ScoreWeights
    from agent.pog.scoring import PathScorer

    memory, embedder = film_memory
    relations = {r for chain in memory.depths if chain[0] in first_steps for r, _ in chain}
    first = PathScorer(embedder, ScoreWeights(), question, None, [], None).first_relation(relations)
    best = memory.prior(embedder.encode([question])[0], question=question, first_steps=first_steps,
                        first_relation=first)[0]
    assert tuple(map(tuple, best.steps)) == expected
