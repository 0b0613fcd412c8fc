"""Chain questions: the answer is the end of the path that explains every relation the
question chains, not the middle of that chain. Each rule is read from the graph's relation
names and the question's words, and tested here on a small geography KG (the shape of
bench/devkgs/geo), with a scripted model."""

from __future__ import annotations

import pytest
from langgraph.runtime import Runtime

from agent import PoGConfig, PoGContext, run_question
from agent.embeddings import Embedder
from agent.pog.answering import answer_from_paths
from agent.pog.candidates import (
    asked_kind_words,
    asked_words,
    asks_for_a_value,
    heads_a_clause,
    leaves_every_end,
    may_name_a_relation,
    named_by_a_verb,
    owner_nouns,
    question_tokens,
    topic_phrase_words,
)
from agent.pog.config import ScoreWeights
from agent.pog.memory import MemoryEntry, PathMemory, mask_question
from agent.pog.scoring import PathScorer, is_value, named_less_fully, walked_both_ways
from agent.pog.state import Entity, PathCandidate, PriorChain
from kg_store.memory import MemoryStore
from kg_store.paths import PathGroup, Step
from tests.pog_fixture import analysis, scripted, store_of

F, B = True, False


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def geo_store() -> MemoryStore:
    return store_of([("Lyon", "country", "France"), ("Paris", "country", "France"), ("France", "capital", "Paris"),
                     ("France", "currency", "Euro"), ("Spain", "currency", "Euro"), ("France", "borders", "Spain"),
                     ("Spain", "borders", "France"), ("Spain", "capital", "Madrid"), ("Madrid", "country", "Spain"),
                     ("France", "continent", "Europe"), ("Spain", "continent", "Europe"),
                     ("Paris", "time_zone", "Europe/Paris"), ("Madrid", "time_zone", "Europe/Madrid"),
                     ("Lyon", "time_zone", "Europe/Paris")])


def scorer(embedder: Embedder, question: str, topic: str, **weights: float) -> PathScorer:
    return PathScorer(embedder, ScoreWeights(**weights), mask_question(question, [topic]), None, [], None)


def parts(embedder: Embedder, question: str, topic: str, *paths: tuple, **weights: float) -> list[dict[str, float]]:
    return scorer(embedder, question, topic, **weights).score([(path, {}, len(path)) for path in paths])


@pytest.mark.parametrize(("question", "asked", "topic_phrase"), [
    ("what money do people spend in X 's country", ["money"], ["country"]),
    ("what currency is used in the country where X is", ["currency"], ["country"]),
    ("name the capitals of the neighbours of X 's country", ["capitals"], ["country"]),
    ("the population of the capital city of X", ["population"], ["city"]),
    ("what is the capital of X", ["capital"], ["capital"]),
    ("the money of the country X comes from", ["money"], ["country"]),
    ("who directed the film X", [], []),
    ("who directed X", [], []),
    ("what are X 's neighbouring countries", ["neighbouring", "countries"], ["neighbouring"]),
    ("what did X 's discoverer also discover", [], ["discoverer"]),
])
def test_the_question_says_what_it_asks_for_and_what_the_topics_phrase_makes_of_it(
        question: str, asked: list[str], topic_phrase: list[str]) -> None:
    words = [w.lower() for w in question_tokens(question)]
    assert asked_words(question) == asked
    assert [words[i] for i in sorted(topic_phrase_words(words, words.index("x")))] == topic_phrase


def test_a_path_that_stops_at_the_topics_own_phrase_pays_when_the_question_asks_for_more(embedder: Embedder) -> None:
    """"what currency is used in the country where X is": the country is the chain's first
    link; a path that ends there answers with the middle of the chain."""
    stops, goes_on = (("country", F),), (("country", F), ("currency", F))
    middle = [p["middle"] for p in parts(embedder, "what currency is used in the country where Lyon is", "Lyon",
                                         stops, goes_on)]
    assert middle == [1.0, 0.0]
    # walking on from that link and back is no stop there ("the same director of X")
    back = (("directed_by", F), ("directed_by", B))
    assert parts(embedder, "which movies have the same director of Big", "Big", back)[0]["middle"] == 0.0
    # asked for the first link itself, it is the answer
    assert parts(embedder, "which country is Lyon in", "Lyon", stops)[0]["middle"] == 0.0
    assert parts(embedder, "what is the capital of France", "France", (("capital", F),))[0]["middle"] == 0.0
    # equated with what is asked by a copula, the topic's phrase names the answer itself
    # ("which city" is the capital: the geo tuning part's 1-hop misses walked on to neighbours' capitals)
    capital = (("capital", F),)
    assert parts(embedder, "Czechia 's capital is which city", "Czechia", capital)[0]["middle"] == 0.0
    assert parts(embedder, "the capital of Czechia is which city", "Czechia", capital)[0]["middle"] == 0.0
    assert parts(embedder, "what money is spent in Czechia 's capital", "Czechia", capital)[0]["middle"] == 1.0


def test_a_step_inside_a_path_may_stand_for_a_word_that_names_no_relation(embedder: Embedder) -> None:
    """"the neighbours of X 's country": `borders` is named by no word's letters, but it
    lies between two named steps and "neighbours" names nothing else; the last step is
    never excused (the embeddings favour paths that run on past the answer)."""
    question = "name the capitals of the neighbours of Lyon 's country"
    through, short = (("country", F), ("borders", F), ("capital", F)), (("country", F), ("capital", F))
    assert [p["unnamed"] for p in parts(embedder, question, "Lyon", through, short)] == [0.0, 0.0]
    assert [p["unnamed"] for p in parts(embedder, question.replace("neighbours", "borders"), "Lyon", through)] == [0.0]
    # "what did X write" has no spare word: a step past the answer still pays
    runs_on = parts(embedder, "what did Nora Ephron write", "Nora Ephron", (("written_by", B), ("starred_actors", F)))
    assert runs_on[0]["unnamed"] == 1.0


def test_the_topics_own_phrase_naming_no_relation_is_the_chains_first_step(embedder: Embedder) -> None:
    """"the capital cities of X 's neighbours": "neighbours" names no relation of the
    graph by its letters, but the topic's own phrase is the chain's first link, so
    `borders` stands for it; the capital of X itself explains the phrase by nothing. A
    path that goes to X's capital and back names every step only by returning to X: it
    does not stop the phrase from excusing a step."""
    def path(steps: list, hops: list) -> PathCandidate:
        return PathCandidate(seed="Slovenia", steps=steps, hops=hops, text="", phase="topic")

    own_capital = path([("capital", F)], [["Ljubljana"]])
    neighbours = path([("borders", F), ("capital", F)], [["Austria", "Italy"], ["Vienna", "Rome"]])
    there_and_back = path([("capital", F), ("capital", B)], [["Ljubljana"], ["Slovenia"]])
    question = mask_question("name the capital cities of Slovenia 's neighbours", ["Slovenia"])
    ranked = PathScorer(embedder, ScoreWeights(), question, None, [], None).rank(
        [own_capital, neighbours, there_and_back])
    assert ranked[0].steps == neighbours.steps
    parts_of = {tuple(s for s, _ in c.steps): c.score_parts for c in ranked}
    assert parts_of["borders", "capital"]["unnamed"] == 0.0 and parts_of["capital",]["first"] == 1.0
    # a topic phrase that names a relation excuses nothing: "X 's capital 's neighbours"
    named = PathScorer(embedder, ScoreWeights(), mask_question("the currency of Slovenia 's capital", ["Slovenia"]),
                       None, [], None).rank([path([("borders", F), ("currency", F)], [["Italy"], ["Euro"]]), own_capital])
    assert {c.steps[0][0]: c.score_parts["unnamed"] for c in named} == {"borders": 1.0, "capital": 0.0}


def test_a_synthesised_memory_cannot_vouch_for_a_path_the_questions_words_count_against(embedder: Embedder) -> None:
    """The synthesised memory finds "name the capital cities of X 's neighbours" nearest
    its "what is the capital of X" and votes for X's own capital; that path leaves the
    topic's phrase unexplained (`first`), so the vote is void and the chain through
    `borders` ranks first. A labelled memory's vote stands."""
    own_capital = PathCandidate(seed="Slovenia", steps=[("capital", F)], hops=[["Ljubljana"]], text="", phase="topic")
    neighbours = own_capital.model_copy(update={"steps": [("borders", F), ("capital", F)],
                                                "hops": [["Austria"], ["Vienna"]]})
    question = mask_question("name the capital cities of Slovenia 's neighbours", ["Slovenia"])
    vote = [PriorChain(steps=[("capital", F)], weight=0.75, depth=1)]
    synthetic = PathScorer(embedder, ScoreWeights(memory=0.4), question, None, vote, None, synthetic_prior=True)
    ranked = synthetic.rank([own_capital, neighbours])
    assert ranked[0].steps == neighbours.steps and ranked[1].score_parts["memory"] == 0.0
    labelled = PathScorer(embedder, ScoreWeights(), question, None, vote, None).rank([own_capital, neighbours])
    assert labelled[0].steps == own_capital.steps and labelled[0].score_parts["memory"] == 0.75


def test_a_synthesised_memory_vouches_for_an_unnamed_relation_beside_a_kind_word(embedder: Embedder) -> None:
    """"what money do the countries bordering X use": no word names `currency` by its
    letters and "countries" names `country`, which the chain does not walk (`unnamed` and
    `missing` both). The memory's vote is what carries the chain to the currencies; voiding
    it there sent the answer to the neighbours' cities."""
    money = PathCandidate(seed="Chad", steps=[("borders", F), ("currency", F)], hops=[["Niger"], ["Franc"]], text="",
                          phase="topic")
    cities = money.model_copy(update={"steps": [("borders", F), ("country", B)], "hops": [["Niger"], ["Niamey"]]})
    question = mask_question("what money do the countries bordering Chad use", ["Chad"])
    vote = [PriorChain(steps=[("borders", F), ("currency", F)], weight=1.0, depth=2)]
    ranked = PathScorer(embedder, ScoreWeights(), question, None, vote, None, synthetic_prior=True).rank(
        [cities, money])
    assert ranked[0].steps == money.steps
    assert {"unnamed": 1.0, "missing": 1.0, "memory": 1.0}.items() <= ranked[0].score_parts.items()


def test_a_path_that_skips_a_link_another_path_stands_in_for_is_no_answer(embedder: Embedder) -> None:
    """"what currencies do the *neighbours* of the country with capital X use":
    "neighbours" names no relation, and the chain through `borders` has a step for it. The
    country's own currency, which a synthesised memory votes for (its written questions
    cannot see the word), skips that link: it pays, and the vote is void."""
    def path(steps: list, hops: list) -> PathCandidate:
        return PathCandidate(seed="Madrid", steps=steps, hops=hops, text="", phase="topic")

    own = path([("capital", B), ("currency", F)], [["Spain"], ["Euro"]])
    neighbours = path([("capital", B), ("borders", F), ("currency", F)], [["Spain"], ["France"], ["Euro"]])
    question = mask_question("what currencies do the neighbours of the country with capital Madrid use", ["Madrid"])
    vote = [PriorChain(steps=[("capital", B), ("currency", F)], weight=1.0, depth=2)]
    ranked = PathScorer(embedder, ScoreWeights(), question, None, vote, None, synthetic_prior=True).rank(
        [own, neighbours])
    assert ranked[0].steps == neighbours.steps
    assert ranked[1].score_parts["skipped"] == 1.0 and ranked[1].score_parts["memory"] == 0.0
    assert ranked[0].score_parts["skipped"] == 0.0
    # a path that stands in for the word on other steps says nothing of this one
    elsewhere = path([("capital", B), ("borders", F), ("capital", F)], [["Spain"], ["France"], ["Paris"]])
    alone = PathScorer(embedder, ScoreWeights(), question, None, vote, None, synthetic_prior=True).rank(
        [own, elsewhere])
    assert {tuple(c.steps): c.score_parts["skipped"] for c in alone}[tuple(own.steps)] == 0.0
    # without the word, no path skips anything and the vote stands
    plain = PathScorer(embedder, ScoreWeights(), mask_question("what currency is used in the country with capital "
                                                               "Madrid", ["Madrid"]), None, vote, None,
                       synthetic_prior=True).rank([own, neighbours])
    assert plain[0].steps == own.steps and plain[0].score_parts["memory"] == 1.0
    assert {c.score_parts["skipped"] for c in plain} == {0.0}


def test_a_word_before_a_relational_noun_may_stand_for_a_step_too(embedder: Embedder) -> None:
    """"the *neighbouring* countries of X 's nation": the adjective names no relation, and
    `borders` between `country` and `capital` stands for it as for "the neighbours of"."""
    question = "which capitals belong to the neighbouring countries of Calgary 's nation"
    through, short = (("country", F), ("borders", F), ("capital", F)), (("country", F), ("capital", F))
    scored = parts(embedder, question, "Calgary", through, short)
    assert [p["unnamed"] for p in scored] == [0.0, 0.0] and [p["skipped"] for p in scored] == [0.0, 1.0]
    # a cue for siblings before the noun asks to share, it stands for no step
    same = scorer(embedder, "what are the movies that have the same screenwriter of Mo' Money", "Mo' Money")
    assert same.spare_words(["written_by", "starred_actors"]) == []


@pytest.mark.parametrize("question", [
    "Ahmedabad lies in a country whose neighbours have which capital cities",
    "which capital cities do the neighbours of Ahmedabad 's country have",
])
def test_a_noun_after_a_possessive_determiner_is_relational(embedder: Embedder, question: str) -> None:
    """"a country *whose neighbours* ...": "whose" makes a relational noun as "X 's" does, and
    `borders` between `country` and `capital` stands for it; the chain that skips it pays
    (geo 3-hop in new phrasings, a development set: the country's own capital answered)."""
    through, short = (("country", F), ("borders", F), ("capital", F)), (("country", F), ("capital", F))
    scored = parts(embedder, question, "Ahmedabad", through, short)
    assert [p["unnamed"] for p in scored] == [0.0, 0.0] and [p["skipped"] for p in scored] == [0.0, 1.0]


def test_a_relational_noun_names_a_step_by_what_another_relation_reaching_its_ends_is_named(
        embedder: Embedder) -> None:
    """"the official language of X 's director 's *country*": `nationality` names no word,
    but the director's country is reached by `film.film.country` too, which "country"
    names: the chain through the director is explained whole, and the film's own country
    misses the director."""
    question = "what is the official language of Amarcord 's director 's country"
    director, nationality = ("film.director.film", B), ("people.person.nationality", F)
    language = ("location.country.official_language", F)
    through = (director, nationality, language)
    reached_by_country = (director, nationality, ("film.film.country", B))  # the candidates' own evidence
    film_country = (("film.film.country", F), language)
    amarcord = scorer(embedder, question, "Amarcord")

    def scored(*paths: tuple, from_every_end: bool = True) -> list[dict[str, float]]:
        return amarcord.score([(p, {}, len(p)) for p in paths], None, [from_every_end] * len(paths))

    explained, _, misses_director = scored(through, reached_by_country, film_country)
    assert (explained["unnamed"], explained["missing"]) == (0.0, 0.0)
    assert misses_director["missing"] == 1.0 and explained["total"] > misses_director["total"]
    # without a candidate that shows the country reached by `film.film.country`, the step is unnamed
    assert [scored(through, film_country)[0][k] for k in ("unnamed", "missing")] == [1.0, 1.0]
    # nor where it leaves from some of the ends only: not every city of a country is a capital
    assert scored(through, reached_by_country, from_every_end=False)[0]["unnamed"] == 1.0
    # nor where the graph has a step there that the word names: the director has written films,
    # and still the screenwriter is `written_by`'s
    films = scorer(embedder, "the films of the screenwriter of Johnny Guitar", "Johnny Guitar").score(
        [((("directed_by", F),), {}, 1), ((("directed_by", F), ("written_by", B)), {}, 2), ((("written_by", F),), {}, 1)],
        None, [False, True, False])
    assert films[0]["unnamed"] == 1.0
    # a step backwards the word names leaves no such guard: `country` walked back from X reaches
    # its cities, and "the *countries* that border X" are the neighbours
    borders = scorer(embedder, "the countries that border Nepal have capitals in which time zones", "Nepal").score(
        [((("borders", F), ("capital", F), ("time_zone", F)), {}, 3), ((("borders", F), ("country", B)), {}, 2),
         ((("country", B),), {}, 1)], None, [False, True, False])
    assert (borders[0]["unnamed"], borders[0]["missing"]) == (0.0, 0.0)
    # a noun that a relative clause follows is as relational: "the *country* the director of X comes from"
    clause = scorer(embedder, "which language is official in the country the director of Amarcord comes from",
                    "Amarcord").score([(p, {}, len(p)) for p in (through, reached_by_country, film_country)], None,
                                      [True] * 3)
    assert (clause[0]["unnamed"], clause[0]["missing"]) == (0.0, 0.0)
    # the word that says what is asked names no middle step: "which country ..." is the end's kind
    asked = scorer(embedder, "which country is the director of Amarcord from", "Amarcord").score(
        [((director, nationality), {}, 2), ((director, nationality, ("film.film.country", B)), {}, 3)], None, [True, True])
    assert asked[0]["unnamed"] == 1.0


@pytest.mark.parametrize(("question", "noun", "heads"), [
    ("which language is official in the country the director of X comes from", "country", True),
    ("what is the capital city of the country whose citizen directed X", "country", True),
    ("X 's director is from a country where which language is official", "country", True),
    ("what is the capital of the country of X", "country", False),
    ("which country borders X", "country", False),
])
def test_a_noun_that_a_relative_clause_follows_heads_it(question: str, noun: str, heads: bool) -> None:
    words = [w.lower() for w in question_tokens(question)]
    assert heads_a_clause(words, words.index(noun)) is heads


def test_a_step_leaves_from_every_end_only_where_each_entity_before_it_has_that_edge() -> None:
    """A country's cities are reached from the country: `capital` backwards leaves from one
    of two countries, `country` backwards from both."""
    countries = {"France": {"Lyon"}, "Spain": {"Lyon"}}
    capital = PathGroup("Lyon", (Step("borders", True), Step("capital", False)), [countries, {"Madrid": {"Spain"}}])
    cities = PathGroup("Lyon", (Step("borders", True), Step("country", False)),
                       [countries, {"Madrid": {"Spain"}, "Paris": {"France"}}])
    assert not leaves_every_end(capital) and leaves_every_end(cities)
    assert not leaves_every_end(PathGroup("Lyon", (Step("country", True),), [{"France": {"Lyon"}}]))


def test_a_chain_through_the_director_answers_for_the_directors_country(embedder: Embedder) -> None:
    """End to end, Freebase's names: the film's own country (Italy and France) is not the
    director's (the United States), and the answer is the director's country's language."""
    films = store_of([("Alan Smithee", "film.director.film", "Amarcord"),
                      ("Alan Smithee", "people.person.nationality", "United States"),
                      ("Amarcord", "film.film.country", "Italy"), ("Amarcord", "film.film.country", "France"),
                      ("Other Film", "film.film.country", "United States"),
                      ("Italy", "location.country.official_language", "Italian"),
                      ("France", "location.country.official_language", "French"),
                      ("United States", "location.country.official_language", "English"),
                      ("Amarcord", "film.film.language", "Italian")])
    context = PoGContext(films, scripted(analyse=analysis(3), answer="ans: Italian"), embedder, PoGConfig())
    state = run_question(context, "what is the official language of Amarcord 's director 's country",
                         [Entity(id="Amarcord", name="Amarcord")])
    assert state["answers"] == ["English"] and state["source"] == "kg"
    assert [s[0] for s in state["answer_path"].steps] == ["film.director.film", "people.person.nationality",
                                                          "location.country.official_language"]


def test_a_synthesised_vote_does_not_carry_a_shorter_path_past_one_the_question_explains_whole(
        embedder: Embedder) -> None:
    """"which language is official in the country the director of X comes from" is nearest
    the written "what language is X in" (`film.film.language`); the chain through the
    director explains every word, and the film's own language leaves three unexplained."""
    question = mask_question("which language is official in the country the director of Amarcord comes from",
                             ["Amarcord"])
    director, nationality = ("film.director.film", B), ("people.person.nationality", F)

    def path(steps: tuple, *hops: str, every: bool = False) -> PathCandidate:
        return PathCandidate(seed="Amarcord", steps=list(steps), hops=[[e] for e in hops], text="", phase="topic",
                             depth=len(steps), from_every_end=every)

    through = path((director, nationality, ("location.country.official_language", F)),
                   "Alan Smithee", "United States", "English")
    reached_by_country = path((director, nationality, ("film.film.country", B)),
                              "Alan Smithee", "United States", "Other Film", every=True)
    own = path((("film.film.language", F),), "Italian")
    # "director" names the art director's relation too, as in Freebase: no first step is the named one
    art_director = path((("film.film.film_art_direction_by", F), nationality), "Danilo Donati", "Italy")
    vote = [PriorChain(steps=[("film.film.language", F)], weight=1.0, depth=1)]

    def ranked(*paths: PathCandidate) -> dict[int, dict[str, float]]:
        scorer = PathScorer(embedder, ScoreWeights(), question, None, vote, None, synthetic_prior=True)
        return {len(c.steps) if c.steps[-1][0] != "film.film.country" else 0: c.score_parts
                for c in scorer.rank([*paths, art_director])}

    scored = ranked(own, reached_by_country, through)
    assert scored[3]["missing"] == 0.0 and scored[1]["missing"] == 3.0
    assert scored[1]["memory"] == 0.0 and scored[3]["total"] > scored[1]["total"]
    # where `film.film.country` reaches only some of the director's countries, the chain leaves
    # a step unnamed, no path is explained whole, and the vote stands
    some = ranked(own, reached_by_country.model_copy(update={"from_every_end": False}), through)
    assert some[3]["unnamed"] == 1.0 and some[1]["memory"] == 1.0


def test_the_kind_of_thing_asked_for_names_the_last_step_that_reaches_it(embedder: Embedder) -> None:
    """"name the *people* whose packages require X": no word names `author`, but a
    synthesised memory knows its tails are people, as the model named them from examples;
    the step reaching them is named by the asked word, so the path to the people no
    longer pays for it against the one that stops at the packages. Not a step inside the
    path, nor where the question asks for another kind."""
    requires_of, author = ("requires", B), ("author", F)
    entries = [MemoryEntry(question_id=f"synthetic:{i}", question=text, paths=[list(chain)], depth=len(chain),
                           synthetic=True, ends=kind)
               for i, (text, chain, kind) in enumerate([
                   ("which software requires X", (requires_of,), "software"),
                   ("who is the author of the software that requires X", (requires_of, author), "people"),
                   ("who wrote X", (author,), "people")])]
    memory = PathMemory(entries, embedder)
    question = mask_question("name the people whose packages require redis", ["redis"])
    assert memory.last_steps_of_asked_kind(question) == [author]
    assert memory.last_steps_of_asked_kind(mask_question("which licenses do the packages of redis carry",
                                                         ["redis"])) == []

    # Without "whose" (`owned_by_asked` names that step already): the asked kind alone.
    question = mask_question("name the people behind the packages that require redis", ["redis"])

    def unnamed(asked_kind: list) -> list[float]:
        scorer = PathScorer(embedder, ScoreWeights(), question, None, [], None, asked_kind_steps=asked_kind)
        return [p["unnamed"] for p in scorer.score([(path, {}, len(path)) for path in
                                                    [(requires_of, author), (author, requires_of), (requires_of,)]])]

    assert unnamed([]) == [1.0, 1.0, 0.0]
    assert unnamed(memory.last_steps_of_asked_kind(question)) == [0.0, 1.0, 0.0]
    assert memory.last_steps_of_asked_kind(mask_question("who wrote redis", ["redis"])) == [author]


@pytest.mark.parametrize(("question", "kind"), [
    ("who wrote the packages that X needs", ["people"]),
    ("whose packages require X", ["people"]),
    ("which films did X direct", ["films"]),
    ("when was the person who discovered X born", []),  # a relative "who" asks for nobody
    ("what did X write", []),
])
def test_the_kind_a_question_asks_for(question: str, kind: list[str]) -> None:
    assert asked_kind_words(question) == kind


def test_asked_words_that_name_a_relation_name_no_step_by_its_kind(embedder: Embedder) -> None:
    """"which *country* borders X" names `country`: countries are what `borders` reaches
    too, but the asked word is a relation's name, not a stand-in for an unnamed step."""
    question = mask_question("which country is Lyon the capital of", ["Lyon"])
    scorer = PathScorer(embedder, ScoreWeights(), question, None, [], None,
                        asked_kind_steps=[("capital", B), ("borders", F)])
    unnamed = [p["unnamed"] for p in scorer.score([(path, {}, len(path)) for path in
                                                   [(("country", F), ("borders", F)), (("capital", B),)]])]
    assert unnamed == [1.0, 0.0]


def test_where_no_word_names_a_relation_the_asked_kind_picks_the_last_step(embedder: Embedder) -> None:
    """"who wrote the libraries that X 's packages need": the link words count three steps,
    and of the paths that long, those ending at another kind than people leave "who"
    unexplained."""
    question = mask_question("who wrote the libraries that Oleh Prypin 's packages need", ["Oleh Prypin"])
    written, needs = ("author", B), ("requires", F)
    scorer = PathScorer(embedder, ScoreWeights(), question, None, [], None, asked_kind_steps=[("author", F)])
    paths = [(written, needs, ("author", F)), (written, needs, ("development_status", F)), (written, needs)]
    assert [p["unnamed"] for p in scorer.score([(path, {}, len(path)) for path in paths])] == [0.0, 1.0, 2.0]
    unaware = PathScorer(embedder, ScoreWeights(), question, None, [], None)
    assert [p["unnamed"] for p in unaware.score([(path, {}, len(path)) for path in paths])] == [0.0, 0.0, 1.0]


def test_a_joined_path_walks_its_joins_relations_too(embedder: Embedder) -> None:
    """"in which countries is Spanish an official language and the CFA franc the currency":
    the path that joins the two topics at Equatorial Guinea walks `official_language` from
    one and `currency` from the other. "currency" is not left unexplained there, so the
    join, explained whole, is no shorter path that misses a word beside the chain from one
    topic through the country to the other (languages conjunctions, new phrasings)."""
    question = mask_question("in which countries is Spanish an official language and CFA Franc the currency",
                             ["Spanish", "CFA Franc"])
    joined = PathCandidate(seed="Spanish", steps=[("official_language", B)], hops=[["Equatorial Guinea"]], text="",
                           phase="topic", depth=1, joins={"CFA Franc": [("currency", B)]})
    through = PathCandidate(seed="Spanish", steps=[("official_language", B), ("currency", F)],
                            hops=[["Equatorial Guinea"], ["CFA Franc"]], text="", phase="topic", depth=2)
    ranked = PathScorer(embedder, ScoreWeights(), question, None, [], None).rank([through, joined])
    assert [c.score_parts["missing"] for c in ranked] == [0.0, 0.0]


@pytest.mark.parametrize(("best_parts", "answer"), [
    ({}, "English"),  # the best path is explained whole: the shorter one that misses words is no answer
    ({"unnamed": 1.0}, "Italian"),  # it is not: the model's pick within the margin stands
])
def test_a_shorter_path_that_leaves_named_words_unexplained_is_no_answer_beside_an_explained_best(
        embedder: Embedder, best_parts: dict[str, float], answer: str) -> None:
    """The model names the film's own language, the end of a path within the answer margin
    that leaves "director", "country" and "official" unexplained, where the chain through
    the director explains every word: the chain answers (the middle is no answer either)."""
    names = {e: e for e in ("Amarcord", "Alan Smithee", "United States", "English", "Italian")}
    steps = [("film.director.film", B), ("people.person.nationality", F), ("location.country.official_language", F)]
    through = PathCandidate(seed="Amarcord", steps=steps, hops=[["Alan Smithee"], ["United States"], ["English"]],
                            text="Amarcord <- film.director.film <- Alan Smithee -> ...", phase="topic", depth=3,
                            score=0.53, score_parts=best_parts)
    own = PathCandidate(seed="Amarcord", steps=[("film.film.language", F)], hops=[["Italian"]],
                        text="Amarcord -> film.film.language -> Italian", phase="topic", depth=1, score=0.50,
                        score_parts={"missing": 3.0})
    context = PoGContext(store_of([("Amarcord", "film.film.language", "Italian")]), scripted(answer="ans: Italian"),
                         embedder, PoGConfig())
    update = answer_from_paths({"question": "which language is official in the country the director of Amarcord "
                                "comes from", "kept": [through, own], "names": names, "evidence": "",
                                "phase": "topic"}, Runtime(context=context))
    assert update["sufficient"] and update["answers"] == [answer]


def test_a_relation_named_twice_asks_for_the_topics_siblings(embedder: Embedder) -> None:
    """"which elements did the discoverer of X discover": `discovered_by` named in two
    places is walked there and back."""
    question = "which elements did the discoverer of Sodium discover"
    there_and_back, there = (("discovered_by", F), ("discovered_by", B)), (("discovered_by", F),)
    assert [p["back"] for p in parts(embedder, question, "Sodium", there_and_back, there)] == [0.0, 1.0]
    assert parts(embedder, "who discovered Sodium", "Sodium", there)[0]["back"] == 0.0


def test_a_walk_there_and_back_before_the_last_step_is_asked_for_only_by_the_question(embedder: Embedder) -> None:
    """"when was X born" is X's birth date, not that of someone born where X was; a
    topic's phrase ("the screenwriter of X") or two words naming a relation ask for it."""
    detour = (("born_in", F), ("born_in", B), ("birth_date", F))
    born = parts(embedder, "when was Ada born", "Ada", detour, (("birth_date", F),))
    assert [p["back"] for p in born] == [1.0, 0.0]
    films = (("written_by", F), ("written_by", B), ("starred_actors", F))
    assert parts(embedder, "who starred films for the screenwriter of Arch", "Arch", films)[0]["back"] == 0.0
    costars = (("starred_actors", F), ("starred_actors", B), ("written_by", F))
    assert parts(embedder, "who wrote the films starred by Tom 's actors", "Tom", costars)[0]["back"] == 0.0


@pytest.mark.parametrize("question", ["what currency is used in the country where Lyon is",
                                      "what money do people spend in Lyon 's country"])
def test_the_model_naming_the_middle_of_a_chain_gets_the_chains_end(embedder: Embedder, question: str) -> None:
    """The 0.5B model names the country for "the currency of X 's country" (the commonest
    miss on chain questions of other KGs than MetaQA); the chain ranked above the shorter
    path answers, with the currency, from the graph."""
    llm = scripted(analyse=analysis(2), answer="ans: France")
    context = PoGContext(geo_store(), llm, embedder, PoGConfig())
    state = run_question(context, question, [Entity(id="Lyon", name="Lyon")])
    assert state["answers"][0] == "Euro" and state["source"] == "kg"
    assert [s[0] for s in state["answer_path"].steps] == ["country", "currency"]
    # asked for the country, the country answers
    asked_country = run_question(PoGContext(geo_store(), scripted(analyse=analysis(1), answer="ans: France"), embedder,
                                            PoGConfig()), "which country is Lyon in", [Entity(id="Lyon", name="Lyon")])
    assert asked_country["answers"][0] == "France"


@pytest.mark.parametrize(("question", "asks"), [
    ("how many people live in the capital of X", True), ("when was X discovered", True),
    ("in what year was X founded", True), ("which years did X win", True), ("what is the capital of X", False),
    ("who discovered X", False), ("which country produces the most X", False)])
def test_english_asks_for_a_number_or_a_date_by_its_own_words(question: str, asks: bool) -> None:
    assert asks_for_a_value(question) is asks


def test_a_path_that_ends_at_no_value_pays_when_the_question_asks_for_one(embedder: Embedder) -> None:
    """"how many people live in the capital of X 's country": the capital, a city, is
    no answer, nor is any end that is not a number or a date."""
    city = PathCandidate(seed="Lyon", steps=[("country", F), ("capital", F)], hops=[["France"], ["Paris"]], text="",
                         phase="topic")
    count = city.model_copy(update={"steps": [*city.steps, ("population", F)], "hops": [*city.hops, ["2,138,551"]]})
    question = mask_question("how many people live in the capital of Lyon 's country", ["Lyon"])
    ranked = PathScorer(embedder, ScoreWeights(), question, None, [], None).rank([city, count])
    assert {c.hops[-1][0]: c.score_parts["value"] for c in ranked} == {"Paris": 1.0, "2,138,551": 0.0}
    asked_city = PathScorer(embedder, ScoreWeights(), mask_question("what is the capital of Lyon 's country", ["Lyon"]),
                            None, [], None).rank([city])
    assert asked_city[0].score_parts["value"] == 0.0
    assert is_value("1807") and is_value("2002-02-17") and is_value("9,733,276") and not is_value("+212")


def test_synthesised_questions_chain_relational_nouns_as_possessives() -> None:
    """"X 's country 's capital" as well as "the capital of the country of X"."""
    from agent.pog.synthesis import FoundSequence, questions_for

    chain = (("country", F), ("capital", F))
    sequence = FoundSequence(chain, ((chain[0],), (chain[1],)), 1.0, ("Lyon", "France", "Paris"))
    written = questions_for(sequence, {}, {})
    assert "what is X 's country 's capital" in written
    assert "what is the capital of the country of X" in written


def test_a_path_that_returns_to_where_it_has_been_pays(embedder: Embedder) -> None:
    """"the capitals of the countries bordering X": the walk on from the capitals to their
    countries ends at the countries again; the model's capital then read as the middle of
    that path answered with the countries."""
    from agent.pog.scoring import loops
    from agent.pog.state import PathCandidate

    assert loops("Mongolia", [{"China", "Russia"}, {"Beijing", "Moscow"}, {"China", "Russia"}])
    assert loops("Lyon", [{"France"}, {"Lyon", "Paris"}]) is False
    assert loops("Big", [{"Penny Marshall"}, {"Big"}])
    # Walking the last relation back ends among the middle's siblings, itself included: not a loop
    sibling_walk = [("symbol", B), ("discovered_by", F), ("discovered_by", B)]
    assert loops("Tl", [{"Thallium"}, {"Crookes"}, {"Thallium"}], sibling_walk) is False
    # ... but there, back and there again is
    assert loops("Film A", [{"Ann"}, {"Film B"}, {"Ann"}], [("directed_by", F), ("directed_by", B), ("directed_by", F)])
    # One relation walked on the same way: a requirement's requirement may be one too
    requires = [("requires", F), ("requires", F)]
    assert loops("pydantic", [{"pydantic-core", "typing-extensions"}, {"typing-extensions"}], requires) is False
    assert loops("a", [{"b"}, {"a"}], requires)  # ... but not back at its start
    question = "what are the capitals of the countries bordering Mongolia"
    steps = [("borders", B), ("capital", F), ("country", F)]
    hops = [["China", "Russia"], ["Beijing", "Moscow"], ["China", "Russia"]]
    walked_on, right = (PathCandidate(seed="Mongolia", steps=steps[:n], hops=hops[:n], text="", phase="topic", depth=n)
                        for n in (3, 2))
    ranked = scorer(embedder, question, "Mongolia").rank([walked_on, right])
    assert [len(c.steps) for c in ranked] == [2, 3] and ranked[1].score_parts["loop"] == 1.0


def test_a_sibling_walk_back_to_its_middle_is_no_path_that_names_every_step(embedder: Embedder) -> None:
    """"the capitals of the neighbours of Ho Chi Minh City 's country": Vietnam's capital
    walked back to Vietnam names `country` and `capital` and nothing else, but only by
    returning; the spare word "neighbours" still stands for `borders` in the right path."""
    from agent.pog.scoring import loops, returns

    question = "name the capitals of the neighbours of Ho Chi Minh City 's country"
    right = PathCandidate(seed="Ho Chi Minh City", steps=[("country", F), ("borders", F), ("capital", F)],
                          hops=[["Vietnam"], ["Cambodia", "Laos"], ["Phnom Penh", "Vientiane"]], text="", phase="topic",
                          depth=3)
    back = PathCandidate(seed="Ho Chi Minh City", steps=[("country", F), ("capital", F), ("capital", B)],
                         hops=[["Vietnam"], ["Hanoi"], ["Vietnam"]], text="", phase="topic", depth=3)
    assert returns(back.seed, back.hops) and not loops(back.seed, back.hops, back.steps)
    ranked = scorer(embedder, question, "Ho Chi Minh City").rank([back, right])
    assert ranked[0] is not back and ranked[0].steps == right.steps and ranked[0].score_parts["unnamed"] == 0.0


@pytest.mark.parametrize("question", ["in which years did Marie Curie discover elements",
                                      "who is Lyon 's mayor 's mayor"])
def test_a_relation_named_by_words_of_two_roots_or_one_word_twice_is_no_walk_back(
        embedder: Embedder, question: str) -> None:
    """Two roots name two relations; one word twice chains a relation the graph chains."""
    topic = question.split(" did ")[-1].split(" discover")[0] if " did " in question else "Lyon"
    one_way = scorer(embedder, question, topic)
    assert not any(one_way.named_twice(r, {r}) for r in ("discovery_year", "discovered_by", "mayor"))
    assert not one_way.named_twice("discovery_year", ())


def test_one_word_twice_walks_back_a_relation_the_graph_does_not_chain(embedder: Embedder) -> None:
    """"which elements were discovered by the person who discovered X": no discoverer is
    discovered, so no candidate walks `discovered_by` twice one way, and the question asks
    for X's siblings (the tuning part's commonest elements 3-hop miss: the person answered).
    Where the graph chains the relation ("X 's father 's father"), the same word is a chain."""
    question = "which elements were discovered by the person who discovered Thallium"
    there_and_back, there = (("discovered_by", F), ("discovered_by", B)), (("discovered_by", F),)
    assert [p["back"] for p in parts(embedder, question, "Thallium", there_and_back, there)] == [0.0, 1.0]
    question = "who is the father of the father of Abel"
    chain, there_and_back = (("father", F), ("father", F)), (("father", F), ("father", B))
    assert [p["back"] for p in parts(embedder, question, "Abel", chain, there_and_back)] == [0.0, 1.0]


def test_one_word_twice_naming_a_chained_relation_asks_for_no_walk_back_of_another(embedder: Embedder) -> None:
    """"what is the symbol of the *unit* that the debye 's reference *unit* is defined from":
    "unit" names `reference_unit`, which the graph chains (walked twice), and `base_unit`,
    which it does not. The word twice is the chain, not a walk back along `base_unit` to the
    debye's siblings (the units tuning part's 3-hop misses: the path that walked
    `reference_unit` back and on to the siblings' symbols was ranked first)."""
    question = "what is the symbol of the unit that the debye 's reference unit is defined from"
    chain = (("reference_unit", F), ("reference_unit", F), ("symbol", F))
    siblings = (("reference_unit", F), ("reference_unit", B), ("symbol", F))
    asked = scorer(embedder, question, "debye")
    assert not asked.named_twice("base_unit", {"reference_unit"}) and asked.named_twice("base_unit", ())
    ranked = parts(embedder, question, "debye", chain, siblings, (("reference_unit", F), ("base_unit", B)))
    # no walk back is asked; the one to the debye's siblings is a detour along a chained relation
    assert [p["back"] for p in ranked] == [0.0, 1.0, 0.0] and ranked[0]["total"] > ranked[1]["total"]


def test_a_word_two_relations_share_names_the_one_the_question_says_more_of(embedder: Embedder) -> None:
    """"what does the unit that defines the *reference unit* of X measure": "unit" names
    `reference_unit` and `base_unit`, "reference" only the first. Where a walk could take
    either, the shared word names the relation the question says more of, so a path that ends
    on `base_unit` (to the systems using the unit) walks a step nothing names (the units tuning
    part's `3hop-alt` misses: it had no penalty and ranked first). Only against a relation
    walked at the same point: a relation named more fully deep in another branch ("country of
    origin" names a TV programme's relation) leaves a film's `country` named."""
    question = "what does the unit that defines the reference unit of reciprocal centimeter measure"
    chain = (("reference_unit", F), ("reference_unit", F), ("quantity_kind", F))
    to_systems = (("reference_unit", F), ("reference_unit", F), ("base_unit", B))
    back = (("reference_unit", F), ("reference_unit", F), ("reference_unit", B))
    ranked = parts(embedder, question, "reciprocal centimeter", chain, to_systems, back)
    assert [p["unnamed"] for p in ranked] == [0.0, 1.0, 0.0] and ranked[0]["total"] > ranked[1]["total"]
    # without `reference_unit` walked there, nothing names the step more fully than "unit"
    assert [p["unnamed"] for p in parts(embedder, question, "reciprocal centimeter", chain, to_systems)] == [0.0, 0.0]
    asked = scorer(embedder, question, "reciprocal centimeter")
    assert asked.named_less_than_another([chain, to_systems, back]) == [[False] * 3, [False, False, True], [False] * 3]
    assert named_less_fully({r: asked.naming_positions(r) for r in ("reference_unit", "base_unit", "symbol")}) \
        == {"base_unit"}
    question = "what is the official language of Star Trek 's country of origin"
    asked = scorer(embedder, question, "Star Trek")
    own, via_country = (("film.film.language", F),), (("film.film.country", F), ("location.country.official_language", F))
    deep = (("film.film.language", F), ("tv.tv_program.languages", B), ("tv.tv_program.country_of_origin", F))
    beside = (("film.film.language", F), ("location.country.official_language", B))
    assert asked.named_less_than_another([own, via_country, deep, beside]) == [
        [False], [False, False], [False, True, False], [False, False]]
    asked = scorer(embedder, "what is the symbol of the unit the yard is defined from", "yard")
    assert not named_less_fully({r: asked.naming_positions(r) for r in ("reference_unit", "base_unit")})


def test_where_only_the_asked_words_name_a_relation_the_link_words_count_the_steps(embedder: Embedder) -> None:
    """"what *unit* defines the *unit* that defines the *unit* X is defined from": "unit"
    names `reference_unit` only where it says what the answers and the middles are, so the
    three link words say how many steps the chain has (the units tuning part's 3-hop
    misses: the one step, every part of it "named", was ranked first). An asked word that
    is a relational noun ("the *capital* cities of X 's neighbours") is a link itself."""
    question = "what unit defines the unit that defines the unit the statvolt is defined from"
    one, three = (("reference_unit", F),), (("reference_unit", F),) * 3
    to_symbol = (("reference_unit", F),) * 2 + (("symbol", F),)
    asked = scorer(embedder, question, "statvolt")
    assert asked.links_count_steps(["reference_unit", "unit_group", "symbol"])
    ranked = parts(embedder, question, "statvolt", one, three, to_symbol)
    # the chain ends on the relation the asked word names: not on the units' symbols
    assert [p["unnamed"] for p in ranked] == [2.0, 0.0, 1.0] and ranked[1]["total"] > ranked[0]["total"]
    assert not scorer(embedder, "name the capital cities of Slovenia 's neighbours", "Slovenia").links_count_steps(
        ["capital", "borders"])
    # a word outside the asked ones names a relation: the names count, as before
    assert not scorer(embedder, "what is the symbol of the unit the yard is defined from", "yard").links_count_steps(
        ["reference_unit", "symbol"])


def test_where_link_words_count_the_steps_an_owner_noun_reads_its_steps_way(embedder: Embedder) -> None:
    """"what licenses apply to the packages that X 's *dependencies* rely on": no word names
    `requires` by its letters, but the owner noun nearest the topic is the first link, so
    `requires` is walked from X, forwards (the packages tuning part's 3-hop misses: the
    walk to what depends on what depends on X was ranked first)."""
    question = "what licenses apply to the packages that httpx 's dependencies rely on"
    forwards = (("requires", F), ("requires", F), ("license", F))
    backwards = (("requires", B), ("requires", B), ("license", F))
    asked = scorer(embedder, question, "httpx")
    assert asked.links_count_steps(["requires", "license"])
    assert [p["way"] for p in parts(embedder, question, "httpx", forwards, backwards)] == [0.0, 1.0]
    # a second owner noun that is a link word reads the second step's way
    question = "under which licences are the dependencies of Sydney Runkle 's packages distributed"
    forwards = (("author", B), ("requires", F), ("license", F))
    backwards = (("author", B), ("requires", B), ("license", F))
    chain = (("author", B), ("requires", F), ("requires", F))  # the graph chains `requires`
    ways = [p["way"] for p in parts(embedder, question, "Sydney Runkle", forwards, backwards, chain)]
    assert ways[:2] == [0.0, 1.0]


def test_a_verb_with_its_particle_beside_the_topic_reads_a_chained_relations_way(embedder: Embedder) -> None:
    """"units *built on* units built on the X measure what kind of quantity": no word names
    `reference_unit` by its letters, but the topic is the object of a verb with its particle,
    so the first step leaves X from the verb's object: backwards, to the units whose reference
    unit X is (the units tuning part's `3hop-alt` misses: the walk forwards, to what X is
    built on, ranked first). A preposition is no such verb: "the unit *behind* X" is X's own
    reference unit, walked forwards. Nor is a relation named by a verb read so: "lie in"
    walks `contains` backwards, "depends on" `requires` forwards; the name cannot say which."""
    question = "units built on units built on the watt measure what kind of quantity"
    forwards = (("reference_unit", F), ("reference_unit", F), ("quantity_kind", F))
    backwards = (("reference_unit", B), ("reference_unit", B), ("quantity_kind", F))
    ranked = parts(embedder, question, "watt", forwards, backwards)
    assert [p["way"] for p in ranked] == [1.0, 0.0] and ranked[1]["total"] > ranked[0]["total"]
    question = "what symbol is written for the unit that the unit behind parsec is defined by"
    forwards = (("reference_unit", F), ("reference_unit", F), ("symbol", F))
    backwards = (("reference_unit", B), ("reference_unit", F), ("symbol", F))
    assert [p["way"] for p in parts(embedder, question, "parsec", forwards, backwards)] == [0.0, 0.0]
    contains, zones = "location.location.contains", "location.location.time_zones"
    question = "what is the time zone of the cities that lie in Ohio"
    forwards, backwards = ((contains, F), (zones, F)), ((contains, B), (zones, F))
    chain = ((contains, F), (contains, F))  # the graph chains `contains`
    assert [p["way"] for p in parts(embedder, question, "Ohio", forwards, backwards, chain)] == [0.0, 0.0, 0.0]
    assert [named_by_a_verb(r) for r in ("location.location.contains", "requires", "film.film.directed_by",
                                         "reference_unit", "capital", "people.person.parents")] == [
        True, True, True, False, False, True]


def test_a_walk_back_along_a_relation_the_graph_chains_is_a_detour(embedder: Embedder) -> None:
    """"what quantity do the *units* that the slinch 's *reference unit* is defined from
    measure": two words name `reference_unit`, which the graph chains (a unit is defined
    from a unit), so they ask to walk on, not there and back to the slinch's reference
    unit's siblings (the units tuning part's 3-hop misses). Two words naming a relation
    that does not chain still ask for the walk ("the films starred by X 's actors")."""
    question = "what quantity do the units that the slinch 's reference unit is defined from measure"
    chain = (("reference_unit", F), ("reference_unit", F), ("quantity_kind", F))
    siblings = (("reference_unit", F), ("reference_unit", B), ("quantity_kind", F))
    asked = scorer(embedder, question, "slinch")
    assert asked.detours(siblings, {"reference_unit"}) and not asked.detours(siblings)
    assert [p["back"] for p in parts(embedder, question, "slinch", chain, siblings)] == [0.0, 1.0]
    films = (("starred_actors", F), ("starred_actors", B), ("release_year", F))
    assert not scorer(embedder, "when were the films starred by Heat 's actors released", "Heat").detours(films, set())


def test_the_word_that_says_what_is_asked_is_not_a_relation_named_twice(embedder: Embedder) -> None:
    """"which *countries* border the *country* whose capital is X": the two words are the
    answers' kind and the middle's; the answers are the neighbours, no walk back to X's
    siblings (the geo tuning part's 2-hop misses: the path that walked `borders` back and
    on again was ranked first)."""
    question = "which countries border the country whose capital is Madrid"
    chain = (("capital", B), ("borders", B))
    assert not scorer(embedder, question, "Madrid").named_twice("country", ())
    assert parts(embedder, question, "Madrid", chain)[0]["back"] == 0.0


def test_a_path_that_walks_the_asked_relation_backwards_ends_at_the_wrong_kind(embedder: Embedder) -> None:
    """"which countries border the country whose capital is X": `country` names its tails
    (countries); walked backwards from the neighbours it reaches their cities."""
    question = "which countries border the country whose capital is Amsterdam"
    right = (("capital", B), ("borders", F))
    walks_on = (*right, ("country", B))
    assert [p["kind"] for p in parts(embedder, question, "Amsterdam", right, walks_on)] == [0.0, 1.0]
    assert parts(embedder, "which cities are in Amsterdam 's country", "Amsterdam", walks_on)[0]["kind"] == 0.0
    # the topic's possessive says what is asked as "the" does: "what are X 's neighbouring *countries*"
    neighbours, their_cities = (("borders", F),), (("borders", F), ("country", B))
    question = "what are Slovenia 's neighbouring countries"
    assert [p["kind"] for p in parts(embedder, question, "Slovenia", neighbours, their_cities)] == [0.0, 1.0]



def test_the_verb_beside_one_of_two_topics_reads_a_chained_relations_way(embedder: Embedder) -> None:
    """"which unit of the US liquid volume group is defined from the pint": the pint is the
    object of a verb with its particle, which reads the first step of every side that walks
    a relation the graph chains back from it, to the units defined from the pint (the units
    tuning part's conjunction misses answered the quart, what the pint is defined from).
    The pint is a head and a tail of `reference_unit`, so the graph chains it though no
    candidate of a two-topic question walks it twice (`walked_both_ways`). Where the words
    read that way, "unit", which names `reference_unit` by its letters, does not ask for
    the walk forwards to its tails: a walk back pays no `kind`."""
    question = "which unit of the US liquid volume group is defined from the pint"
    asked = PathScorer(embedder, ScoreWeights(), mask_question(question, ["US liquid volume", "pint"]), None, [], None)
    joins = {"US liquid volume": [("unit_group", F)]}
    back, on = (("reference_unit", B),), (("reference_unit", F),)
    from_group = ((("unit_group", B),), {"pint": [("reference_unit", B)]}, 1)
    read = asked.score([(back, joins, 1), (on, joins, 1), from_group], both_ways={"reference_unit"})
    assert [p["way"] for p in read] == [0.0, 1.0, 0.0] and [p["kind"] for p in read[:2]] == [0.0, 0.0]
    assert read[0]["total"] > read[1]["total"]
    unread = asked.score([(back, joins, 1), (on, joins, 1)])  # nothing says the graph chains it
    assert [(p["kind"], p["way"]) for p in unread] == [(1.0, 0.0), (0.0, 0.0)]
    first_steps = [("pint", ("reference_unit", F), ["quart"]), ("pint", ("reference_unit", B), ["gill"]),
                   ("pint", ("unit_group", F), ["US liquid volume"]),
                   ("US liquid volume", ("unit_group", B), ["pint", "gill"])]
    assert walked_both_ways(first_steps) == {"reference_unit"}
    # `country` joins cities to countries: no topic is both, and nothing chains it
    assert walked_both_ways([("Paris", ("country", F), ["France"]), ("France", ("country", B), ["Paris"])]) == set()


def test_a_spare_word_excuses_no_step_where_a_path_as_long_names_them_all(embedder: Embedder) -> None:
    question = "which actors starred in films of the screenwriter of Crank"
    named = (("written_by", F), ("written_by", B), ("starred_actors", F))
    excused = (("written_by", F), ("directed_by", B), ("starred_actors", F))
    assert [p["unnamed"] for p in parts(embedder, question, "Crank", named, excused)] == [0.0, 1.0]
    assert parts(embedder, question, "Crank", excused)[0]["unnamed"] == 0.0
    # and the path that names them all skips no link: the spare word stands for nothing
    assert [p["skipped"] for p in parts(embedder, question, "Crank", named, excused)] == [0.0, 0.0]


def test_the_model_naming_the_middle_of_any_chain_from_one_topic_gets_the_chains_end(embedder: Embedder) -> None:
    """"which elements were discovered by the person who discovered the element with
    symbol Ce": the topic makes no noun of itself ("X 's country"), and still the 0.5B
    model's pick of the discoverer, the chain's middle, is no answer (elements 3-hop
    tuning part): the walk back to the discoverer's elements answers, from the graph."""
    elements = store_of([("Cerium", "symbol", "Ce"), ("Selenium", "symbol", "Se"), ("Thallium", "symbol", "Tl"),
                         ("Cerium", "discovered_by", "Berzelius"), ("Selenium", "discovered_by", "Berzelius"),
                         ("Thallium", "discovered_by", "Crookes"), ("Cerium", "discovered_in", "Sweden"),
                         ("Selenium", "discovered_in", "Sweden"), ("Thallium", "discovered_in", "England")])
    context = PoGContext(elements, scripted(analyse=analysis(3), answer="ans: Berzelius"), embedder, PoGConfig())
    state = run_question(context, "which elements were discovered by the person who discovered the element with symbol Ce",
                         [Entity(id="Ce", name="Ce")])
    assert sorted(state["answers"]) == ["Cerium", "Selenium"] and state["source"] == "kg"
    assert [s[0] for s in state["answer_path"].steps] == ["symbol", "discovered_by", "discovered_by"]


def test_a_constraints_path_runs_on_past_the_answer_the_model_names(embedder: Embedder) -> None:
    """"which school, founded in 1919, did Ada attend": the path runs on from the school to
    the year the question names; the year is no answer, the school the model names is."""
    schools = store_of([("Ada", "attended", "Allenswood"), ("Ada", "attended", "Chatham"),
                        ("Allenswood", "founded", "1919"), ("Chatham", "founded", "1890")])
    context = PoGContext(schools, scripted(analyse=analysis(2), answer="ans: Allenswood"), embedder, PoGConfig())
    state = run_question(context, "which school, founded in 1919, did Ada attend", [Entity(id="Ada", name="Ada")])
    assert state["answers"][0] == "Allenswood"


def test_an_answer_whose_name_is_part_of_a_topics_name_is_still_an_answer(embedder: Embedder) -> None:
    """"name a language of Bangladesh that uses the Bangla script": "Bangla" is in the
    question only as part of a topic's name; it is the answer (languages conjunctions,
    tuning part: it was held for a name the question gives, and no rule could pick it)."""
    languages = store_of([("Bangladesh", "official_language", "Bangla"), ("Bangladesh", "official_language", "English"),
                          ("Bangla", "script", "Bangla script"), ("English", "script", "Latin script"),
                          ("Assamese", "script", "Bangla script")])
    context = PoGContext(languages, scripted(analyse=analysis(2), answer="ans: Bangla"), embedder, PoGConfig())
    state = run_question(context, "name a language of Bangladesh that uses the Bangla script",
                         [Entity(id="Bangladesh", name="Bangladesh"), Entity(id="Bangla script", name="Bangla script")])
    assert state["answers"][0] == "Bangla"



def test_a_chain_the_question_leaves_unexplained_does_not_override_the_models_pick(embedder: Embedder) -> None:
    """"what are the neighbours of the nation with Prague as its capital": "neighbours"
    names no relation, so the chain on to the neighbours' capitals leaves a step
    unexplained, and the model's pick inside it, the neighbour, answers (geo 2-hop tuning
    part: the capitals answered)."""
    geo = store_of([("Prague", "country", "Czechia"), ("Czechia", "capital", "Prague"), ("Czechia", "borders", "Austria"),
                    ("Czechia", "borders", "Poland"), ("Austria", "capital", "Vienna"), ("Poland", "capital", "Warsaw")])
    context = PoGContext(geo, scripted(analyse=analysis(3), answer="ans: Austria"), embedder, PoGConfig())
    state = run_question(context, "what are the neighbours of the nation with Prague as its capital",
                         [Entity(id="Prague", name="Prague")])
    assert state["answers"][0] == "Austria"


def test_a_path_the_question_counts_against_stays_the_models_pick_under_a_weak_best(embedder: Embedder) -> None:
    """"Cambodia 's capital is which city": the question counts against the one-hop path
    (`middle`: "capital" is only in the topic's phrase), but the best path, on to the
    capital's population, leaves a step unexplained; the model's pick within the margin
    stands (geo 1-hop tuning part)."""
    geo = store_of([("Cambodia", "capital", "Phnom Penh"), ("Phnom Penh", "population", "1,573,544"),
                    ("Cambodia", "borders", "Laos"), ("Laos", "capital", "Vientiane")])
    context = PoGContext(geo, scripted(analyse=analysis(2), answer="ans: Phnom Penh"), embedder, PoGConfig())
    state = run_question(context, "Cambodia 's capital is which city", [Entity(id="Cambodia", name="Cambodia")])
    assert state["answers"][0] == "Phnom Penh"


def test_the_names_at_a_path_s_end_tell_whether_it_reaches_what_is_asked_for(embedder: Embedder) -> None:
    """"which elements come from the places where X made discoveries": a path that ends at
    Argon and Helium reaches elements, one that ends at Scotland a place; the graph's own
    names say so, not a word list. A question that does not say what it asks ("who ...")
    gets no such term."""
    places = PathCandidate(seed="Rayleigh", steps=[("discovered_by", B), ("discovered_in", F)],
                           hops=[["Argon"], ["Scotland"]], text="", phase="topic")
    elements = places.model_copy(update={"steps": [*places.steps, ("discovered_in", B)],
                                         "hops": [*places.hops, ["Argon", "Helium", "Nitrogen"]]})
    names = {e: e for e in ("Argon", "Scotland", "Helium", "Nitrogen")}
    question = mask_question("which elements come from the places where Rayleigh made discoveries", ["Rayleigh"])
    ranked = PathScorer(embedder, ScoreWeights(), question, None, [], None).rank([places, elements], names)
    fit = {c.hops[-1][0]: c.score_parts["fit"] for c in ranked}
    assert fit["Argon"] > fit["Scotland"]
    who = PathScorer(embedder, ScoreWeights(), mask_question("who discovered Rayleigh", ["Rayleigh"]), None, [], None)
    assert {c.score_parts["fit"] for c in who.rank([places, elements], names)} == {0.0}
    unweighed = PathScorer(embedder, ScoreWeights(fit=0.0), question, None, [], None).rank([places, elements], names)
    assert {c.score_parts["fit"] for c in unweighed} == {0.0}


def test_siblings_the_question_asks_for_by_their_kind_pay_no_walk_back(embedder: Embedder) -> None:
    """"which elements were found by the discoverer of element number X" names no cue for
    siblings and `discovered_by` once, but asks for elements: the discoverer's other
    elements fit that, and no path that walks nothing back reaches anything like it. The
    walk back pays no `back`, and a synthesised vote for it stands (elements development
    phrasings). Nor does it pay `kind`, where a participle beside the asked noun names its
    relation. Asked for people, or not asked for a kind, the walk back still pays."""
    by = PathCandidate(seed="96", steps=[("atomic_number", B), ("discovered_by", F)],
                       hops=[["Curium"], ["Glenn Seaborg"]], text="", phase="topic")
    where = by.model_copy(update={"steps": [("atomic_number", B), ("discovered_in", F)], "hops": [["Curium"], ["USA"]]})
    siblings = by.model_copy(update={"steps": [*by.steps, ("discovered_by", B)],
                                     "hops": [*by.hops, ["Americium", "Berkelium", "Californium"]]})
    names = {e: e for e in ("Curium", "Glenn Seaborg", "USA", "Americium", "Berkelium", "Californium")}
    vote = [PriorChain(steps=list(siblings.steps), weight=1.0, depth=3)]

    def ranked(question: str) -> dict[str, PathCandidate]:
        scorer = PathScorer(embedder, ScoreWeights(), mask_question(question, ["96"]), None, vote, None,
                            synthetic_prior=True)
        return {c.hops[-1][0]: c for c in scorer.rank([by, where, siblings], names)}

    for question in ("which elements were found by the discoverer of element number 96",
                     # "discovered" rides along with the asked noun and names `discovered_by`: `kind`
                     "name the elements discovered by the person behind element number 96"):
        asked = ranked(question)
        assert asked["Americium"].score_parts["back"] == asked["Americium"].score_parts["kind"] == 0.0
        assert asked["Americium"].score_parts["memory"] == 1.0
        assert max(asked.values(), key=lambda c: c.score).hops[-1][0] == "Americium"
    for question in ("which people were found by the discoverer of element number 96",
                     "who were found by the discoverer of element number 96"):
        other = ranked(question)["Americium"].score_parts
        assert other["back"] == 1.0 and other["memory"] == 0.0


def test_one_word_names_one_step_of_a_relation_walked_the_same_way(embedder: Embedder) -> None:
    """"which countries border the country whose capital is X" names `borders` once: a path
    on to the neighbours' neighbours walks it a second time unnamed (geo 2-hop tuning part,
    where that path's ends were the model's pick). Two words naming it ask for both steps."""
    once, twice = (("capital", B), ("borders", F)), (("capital", B), ("borders", F), ("borders", F))
    scored = parts(embedder, "which countries border the country whose capital is Kathmandu", "Kathmandu", once, twice)
    assert [p["unnamed"] for p in scored] == [0.0, 1.0]
    asked_twice = parts(embedder, "which countries border the countries that border the country whose capital is "
                        "Kathmandu", "Kathmandu", once, twice)
    assert asked_twice[1]["unnamed"] == 0.0


def test_the_words_saying_what_is_asked_are_explained_by_the_last_step_only(embedder: Embedder) -> None:
    """"which *capitals* belong to the neighbouring countries of X 's nation" asks for
    capitals: a path that walks `capital` only back from the topic (X is its nation's
    capital) and ends at the neighbours leaves the asked word unexplained; the chain whose
    last step is `capital` explains it (geo's other 3-hop phrasings, tuning part)."""
    question = "which capitals belong to the neighbouring countries of Conakry 's nation"
    from_topic, chain = (("capital", B), ("borders", F)), (("country", F), ("borders", F), ("capital", F))
    conakry = scorer(embedder, question, "Conakry")
    assert [conakry.words[i] for i in conakry.asked_elsewhere(from_topic, {})] == ["capitals"]
    assert conakry.asked_elsewhere(chain, {}) == frozenset()
    assert conakry.asked_elsewhere(tuple(reversed(from_topic)), {}) == frozenset()  # `capital` last
    scored = conakry.score([(from_topic, {}, 2), (chain, {}, 3)])
    assert scored[1]["missing"] == 0.0 < scored[0]["missing"]
    # where the asked word names nothing, nothing changes
    # a step forward reaches the kind it is named after, which the answers may share
    own = scorer(embedder, "which countries border Conakry 's country", "Conakry")
    assert own.asked_elsewhere((("country", F), ("borders", F)), {}) == frozenset()


@pytest.mark.parametrize(("middle_fit", "answers"), [(0.5, None), (0.15, ["Ada"])])
def test_the_models_pick_of_a_chains_middle_stands_where_the_middle_is_what_is_asked(
        middle_fit: float, answers: list[str] | None) -> None:
    """"Which countries speak the Germanic languages, and is where X was born?" (CWQ tuning
    part): the chain runs on from the countries to the people born there, and the model
    names a country. Where the countries fit the asked words ("countries") clearly better
    than the chain's end does, the chain does not override the pick (rule 5 answers with the
    path up to it); where they fit about as well, the chain's end answers."""
    from agent.pog.answering import _named_middle_of_chain

    chain = PathCandidate(seed="Germanic", steps=[("language_family", B), ("born_in", B)], hops=[["Belgium"], ["Ada"]],
                          text="", phase="topic", score=0.9, score_parts={"fit": 0.2})
    middle = PathCandidate(seed="Germanic", steps=[("language_family", B)], hops=[["Belgium"]], text="",
                           phase="topic", score=0.7, score_parts={"fit": middle_fit})
    names = {"Belgium": "Belgium", "Ada": "Ada"}
    found = _named_middle_of_chain(["Belgium"], [chain], [chain, middle], names, "kg", 0.05, lambda c: True)
    assert (found and found["answers"]) == answers


@pytest.mark.parametrize(("question", "nouns"), [
    ("who wrote the requirements of X", ["requirements"]),
    ("who wrote X 's requirements", ["requirements"]),
    ("name the authors of the requirements of the requirements of X", ["requirements", "requirements", "authors"]),
    ("the authors of X 's requirements", ["requirements", "authors"]),
    ("what is the capital of the X", ["capital"]),
    ("which packages does X require", []),
    ("name the packages that require X", []),
])
def test_nouns_make_the_topic_their_owner_before_of_or_after_a_possessive(question: str, nouns: list[str]) -> None:
    words = [w.lower() for w in question_tokens(question)]
    assert [words[i] for i in owner_nouns(words, words.index("x"))] == nouns


def test_a_step_walks_the_relation_an_owner_noun_names_as_the_noun_reads_it(embedder: Embedder) -> None:
    """"the *requirements* of X" are what X requires, not the packages that require X: one
    relation between things of one kind, walked either way, and only the words' order tells
    (the packages tuning part: "which Python versions do the requirements of X need at
    least" tied both ways; "the authors of the requirements of the requirements of X"
    walked back at the second step). A noun naming a relation's heads reads it the other
    way: "the *parts* of X" are `part_of` X."""
    forward, backward = (("requires", F), ("author", F)), (("requires", B), ("author", F))
    for question in ("who wrote the requirements of rich", "who wrote rich 's requirements"):
        assert [p["way"] for p in parts(embedder, question, "rich", forward, backward)] == [0.0, 1.0]
    assert [p["way"] for p in parts(embedder, "who wrote the packages that require rich", "rich",
                                    forward, backward)] == [0.0, 0.0]
    twice = parts(embedder, "name the authors of the requirements of the requirements of rich", "rich",
                  (("requires", F), ("requires", F), ("author", F)), (("requires", F), ("requires", B), ("author", F)))
    assert [p["way"] for p in twice] == [0.0, 1.0]
    films = parts(embedder, "the films of the screenwriter of Night Must Fall", "Night Must Fall",
                  (("written_by", F), ("written_by", B)))
    assert films[0]["way"] == 0.0  # one noun, one step: the walk back to the films is no noun's
    back_then_on = parts(embedder, "which Python versions do the requirements of croniter need at least", "croniter",
                         (("requires", B), ("requires", F), ("minimum_python_version", F)))
    assert back_then_on[0]["way"] == 1.0  # the first noun is the first step's
    parts_of = parts(embedder, "what are the parts of Engine", "Engine", (("part_of", B),), (("part_of", F),))
    assert [p["way"] for p in parts_of] == [0.0, 1.0]
    # Freebase names `film.director.film` by its heads' type: "the director of X" walks it back
    director = parts(embedder, "which city is the capital of the home country of the director of Alien", "Alien",
                     (("film.director.film", B), ("people.person.nationality", F), ("location.country.capital", F)))
    assert director[0]["way"] == 0.0


def test_a_relation_the_graph_chains_is_walked_once_for_each_word_naming_it(embedder: Embedder) -> None:
    """One word, one step, the other way round: "the authors of the *requirements* of the
    *requirements* of X" walks `requires` twice, and a path walking it once leaves a word
    unexplained (the packages tuning part's 3-hop misses). Only where the graph chains the
    relation: a candidate walks it twice one way."""
    question = "name the authors of the requirements of the requirements of rich"
    once, twice = (("requires", F), ("author", F)), (("requires", F), ("requires", F), ("author", F))
    assert [p["missing"] for p in parts(embedder, question, "rich", once, twice)] == [1.0, 0.0]
    assert parts(embedder, question, "rich", once)[0]["missing"] == 0.0


def test_words_side_by_side_naming_a_relation_are_one_mention_of_it(embedder: Embedder) -> None:
    """One mention, one step: "the *unit* that the debye 's *reference unit* is defined from"
    names `reference_unit` twice, not three times, so the chain that walks it twice leaves
    nothing unexplained and the one that walks it once leaves one mention (the units tuning
    part's 3-hop misses: both paid, and a synthesised vote carried the shorter)."""
    question = "what is the symbol of the unit that the debye 's reference unit is defined from"
    once = (("reference_unit", F), ("symbol", F))
    twice = (("reference_unit", F), ("reference_unit", F), ("symbol", F))
    assert [p["missing"] for p in parts(embedder, question, "debye", once, twice)] == [1.0, 0.0]
    assert scorer(embedder, question, "debye").named_too_few_times(twice[:1] * 3) == [False, False, True]


def test_one_word_in_two_inflections_is_one_word_twice(embedder: Embedder) -> None:
    """"the *units* that the gilbert 's reference *unit* is defined from": one word, plural
    and singular, naming `reference_unit` (chained) in both places; no walk back along
    `base_unit`, which "unit" names too. So are "*required* by the packages that X
    *requires*", whose "-ed" drops a silent "e": `requires` twice forwards, no walk back.
    Two roots ("discoverer", "discover") stay two."""
    question = "what quantity do the units that the gilbert 's reference unit is defined from measure"
    asked = scorer(embedder, question, "gilbert")
    assert not asked.named_twice("base_unit", {"reference_unit"})
    chain = (("reference_unit", F), ("reference_unit", F), ("quantity_kind", F))
    assert parts(embedder, question, "gilbert", chain)[0]["back"] == 0.0
    assert scorer(embedder, "which elements did the discoverer of X discover", "X").named_twice("discovered_by", ())
    required = "under what license are the packages required by the packages that X requires released"
    assert not scorer(embedder, required, "X").named_twice("requires", {"requires"})
    assert parts(embedder, required, "X", (("requires", F), ("requires", F), ("license", F)))[0]["back"] == 0.0


@pytest.mark.parametrize(("question", "verb"), [
    ("how is the unit behind the darcy abbreviated", "abbreviated"),
    ("what does darcy measure", "measure"),
    ("who directed darcy 's films", None),  # a noun after a possessive
    ("who is listed as director of darcy acted films", None),  # a noun after a participle
    ("units derived from the darcy measure what", "measure"),  # a wh-word in place, at the end
    ("which symbols do the units behind the darcy have", None),  # "symbols" says what is asked
    ("what is the symbol of the darcy", None),
])
def test_a_question_that_says_nothing_of_what_it_asks_ends_on_the_verb_that_asks_it(
        embedder: Embedder, question: str, verb: str | None) -> None:
    at = scorer(embedder, question, "darcy").closing_verb_at
    assert (question.split()[at] if at is not None else None) == verb


def test_a_closing_verb_that_names_no_relation_names_the_last_step(embedder: Embedder) -> None:
    """"how is the unit behind the darcy *abbreviated*": no word names `symbol` by its
    letters, and the path that stops at the unit explained every word it read (the units
    tuning part's 2-hop misses: the model named the unit, and the chain to its symbol paid
    for an unnamed last step). A step inside the path stays unexcused by it."""
    question = "how is the unit behind the darcy abbreviated"
    chain, unit = (("reference_unit", F), ("symbol", F)), (("reference_unit", F),)
    scored = parts(embedder, question, "darcy", chain, unit, (("symbol", F), ("reference_unit", B)))
    assert [p["unnamed"] for p in scored] == [0.0, 0.0, 1.0] and scored[0]["total"] > scored[1]["total"]


def test_a_path_no_longer_than_the_other_words_mentions_leaves_the_closing_verb_out(embedder: Embedder) -> None:
    """"where were the elements discovered by K.Street Jr *found*": "discovered" names
    `discovered_by`, and the path that stops at the elements explained every word but the
    verb that asks the question (the elements and units tuning parts' 2-hop misses). That
    verb is a step after the one "discovered" names; a question with no other word naming a
    relation ("what does X *measure*") walks one step for it."""
    question = "where were the elements discovered by K.Street Jr found"
    stops, goes_on = (("discovered_by", B),), (("discovered_by", B), ("discovered_in", F))
    scored = parts(embedder, question, "K.Street Jr", stops, goes_on)
    assert [p["missing"] for p in scored] == [1.0, 0.0] and scored[1]["total"] > scored[0]["total"]
    measure = parts(embedder, "what does kilogram measure", "kilogram", (("quantity_kind", F),))
    assert measure[0]["missing"] == 0.0
    # a wh-word in place at the end asks what the verb before it says: the chain's last step
    derived = parts(embedder, "units derived from the dyne measure what", "dyne",
                    (("reference_unit", B),), (("reference_unit", B), ("quantity_kind", F)))
    assert [p["missing"] for p in derived] == [1.0, 0.0] and derived[1]["total"] > derived[0]["total"]


@pytest.mark.parametrize(("question", "verb", "subject"), [
    ("who wrote the packages X requires", "requires", True),
    ("what does X require", "require", True),
    ("which packages are required by X", "required", True),
    ("the audiences of the packages that require X", "require", False),
    ("what is the capital of X", None, None),
    ("who wrote the packages that depend on X", "depend", False),
    ("what is the symbol of the unit the X is defined from", None, None),  # "the unit": a noun
    ("units built on units built on the X measure what", "built", False),  # "measure" is the units'
])
def test_the_verb_beside_the_topic_makes_it_the_subject_or_the_object(question: str, verb: str | None,
                                                                       subject: bool | None) -> None:
    from agent.pog.candidates import topic_verb

    words = [w.lower() for w in question_tokens(question)]
    found = topic_verb(words, words.index("x"))
    assert (words[found[0]], found[1]) == (verb, subject) if verb else found is None


def test_a_relation_between_things_of_one_kind_is_walked_as_the_verb_beside_the_topic_reads_it(
        embedder: Embedder) -> None:
    """"the packages X *requires*" are what X requires, "the packages that *require* X" what
    requires X (the packages development phrasings: both walked the wrong way). Only for a
    relation the graph chains (a candidate walks it twice one way): "who *directed* X" and
    "the films X *directed*" are told apart by what the ends are."""
    forward, backward = (("requires", F), ("author", F)), (("requires", B), ("author", F))
    chained = (("requires", F), ("requires", F))
    subject = parts(embedder, "who wrote the packages rich requires", "rich", forward, backward, chained)
    assert [p["way"] for p in subject[:2]] == [0.0, 1.0]
    obj = parts(embedder, "who wrote the packages that require rich", "rich", forward, backward, chained)
    assert [p["way"] for p in obj[:2]] == [1.0, 0.0]
    not_chained = parts(embedder, "who wrote the packages that require rich", "rich", forward, backward)
    assert [p["way"] for p in not_chained] == [0.0, 0.0]
    films = parts(embedder, "which films did Ann direct", "Ann", (("directed_by", B),), (("directed_by", F),),
                  (("directed_by", B), ("directed_by", B)))
    assert films[0]["way"] == 0.0 and films[1]["way"] == 1.0  # "Ann direct": the subject of a passive name


def test_an_asked_owner_noun_names_a_step_too(embedder: Embedder) -> None:
    """"name the *requirements* of X 's requirements": the asked word is an owner noun, and
    a path walking `requires` once leaves it unexplained (packages development phrasings,
    where the synthesised vote for the one-hop path answered)."""
    once, twice = (("requires", F),), (("requires", F), ("requires", F))
    scored = parts(embedder, "name the requirements of pydantic 's requirements", "pydantic", once, twice)
    assert [p["missing"] for p in scored] == [1.0, 0.0]


@pytest.mark.parametrize(("best_value", "answer"), [(1.0, "2"), (0.0, "Euro")])
def test_a_best_path_ending_at_no_number_keeps_no_margin_over_one_that_does(
        embedder: Embedder, best_value: float, answer: str) -> None:
    """"the currency used in X has how many decimal places": the best path ends at the
    currency, no number, and the model names the end of the path on to its minor units,
    0.09 below (languages development phrasings: the currency answered). Where the best
    path is not counted against, the margin holds and the best path answers."""
    names = {e: e for e in ("Åland Islands", "Euro", "2")}
    currency = PathCandidate(seed="Åland Islands", steps=[("currency", F)], hops=[["Euro"]],
                             text="Åland Islands -> currency -> Euro", phase="topic", depth=1, score=0.70,
                             score_parts={"value": best_value})
    units = PathCandidate(seed="Åland Islands", steps=[("currency", F), ("minor_units", F)], hops=[["Euro"], ["2"]],
                          text="Åland Islands -> currency -> Euro -> minor_units -> 2", phase="topic", depth=2,
                          score=0.61, score_parts={"unnamed": 1.0})
    context = PoGContext(store_of([("Åland Islands", "currency", "Euro"), ("Euro", "minor_units", "2")]),
                         scripted(answer="ans: 2"), embedder, PoGConfig())
    update = answer_from_paths({"question": "the currency used in Åland Islands has how many decimal places",
                                "kept": [currency, units], "names": names, "evidence": "", "phase": "topic"},
                               Runtime(context=context))
    assert update["sufficient"] and update["answers"] == [answer]


def test_a_walk_back_along_a_relation_between_things_of_one_kind_is_no_kind_the_question_asks_for(
        embedder: Embedder) -> None:
    """"name the requirements of pydantic 's requirements": the walk on from the
    requirements' requirement back to everything else that requires it ends at packages
    whose names fit "requirements" better (0.23) than typing-extensions does (0.09), but
    every end of `requires` is a package: the fit says nothing, and the walk back pays
    `back` (packages development phrasings: the model named a package it reaches)."""
    chain = PathCandidate(seed="pydantic", steps=[("requires", F), ("requires", F)],
                          hops=[["annotated-types", "pydantic-core", "typing-extensions", "typing-inspection"],
                                ["typing-extensions"]], text="", phase="topic", depth=2)
    back = chain.model_copy(update={"steps": [*chain.steps, ("requires", B)], "depth": 3,
                                    "hops": [*chain.hops, ["anyio", "fastapi", "grpcio", "httpx2", "pydantic-core"]]})
    names = {e: e for hop in back.hops for e in hop}
    ranked = scorer(embedder, "name the requirements of pydantic 's requirements", "pydantic").rank([chain, back], names)
    assert ranked[0].hops[-1] == ["typing-extensions"]
    assert ranked[1].score_parts["back"] == 1.0


def test_a_relation_reaching_the_same_entities_either_way_has_no_direction(embedder: Embedder) -> None:
    """"the countries *bordering* Qatar": `borders` is stored both ways, and each way reaches
    Saudi Arabia; a penalty on one of them only reordered equals and changed what the model
    was shown (geo 3-hop tuning part, two questions lost). Where the ways differ, the verb
    decides."""
    def ways(back_hop: list[str]) -> list[float]:
        forward = PathCandidate(seed="Qatar", steps=[("borders", F)], hops=[["Saudi Arabia"]], text="", phase="topic")
        backward = forward.model_copy(update={"steps": [("borders", B)], "hops": [back_hop]})
        chained = forward.model_copy(update={"steps": [("borders", F), ("borders", F)],
                                             "hops": [["Saudi Arabia"], ["Jordan"]], "depth": 2})
        ranked = scorer(embedder, "which countries bordering Qatar are large", "Qatar").rank([forward, backward, chained])
        return [c.score_parts["way"] for c in sorted(ranked, key=lambda c: (len(c.steps), c.steps[0][1]))[:2]]

    assert ways(["Saudi Arabia"]) == [0.0, 0.0]
    assert ways(["Bahrain"]) == [0.0, 1.0]  # (borders B) first, then (borders F): the object's way is back


@pytest.mark.parametrize(("question", "links"), [
    ("who wrote the packages that depend on packages that depend on X", ["wrote", "depend", "depend"]),
    ("who wrote the packages that X 's dependencies depend on", ["wrote", "dependencies", "depend"]),
    ("which people made the libraries that X needs", ["made", "needs"]),
    ("what does X need", ["need"]),
    ("who created the packages X relies on", ["created", "relies"]),  # "the packages X": what a step reaches
    ("who made each of the packages that use X", ["made", "use"]),
    ("name the authors of X", []),  # the asked word is no link
    # a compound preposition's noun and a reflexive pronoun say no link
    ("the unit X is defined in terms of is itself defined from which unit", ["defined", "defined"]),
    # a noun a participle follows names what a step reaches, as one a relative clause follows
    ("which audiences are the packages depending on X meant for", ["depending", "meant"]),
    ("which licences do the packages used by X 's requirements carry", ["used", "requirements", "carry"]),
    # the bare subject of "do" says who does what its verb says; one that reaches the topic is a link
    ("what do people pay with in X", ["pay"]),
    ("which licences do dependencies of X use", ["dependencies", "use"]),
])
def test_the_words_saying_a_chains_links_are_its_verbs_and_relational_nouns(question: str, links: list[str]) -> None:
    from agent.pog.candidates import link_words

    words = [w.lower() for w in question_tokens(question)]
    asked = set(asked_words(question))
    candidates = [i for i, w in enumerate(words) if may_name_a_relation(w) and w != "x" and w not in asked]
    assert [words[i] for i in link_words(words, candidates)] == links


def test_where_no_word_names_a_relation_the_link_words_count_the_steps(embedder: Embedder) -> None:
    """"who wrote the packages that depend on packages that depend on X": no word names
    `requires` or `author` (MiniLM puts "depend" 0.44 from "requires"), so every step was
    unnamed alike and the one-step path won (the packages tuning part's 3-hop misses). Three
    link words ask for three steps: each step fewer or more is unexplained."""
    question = "who wrote the packages that depend on packages that depend on rich"
    one, three = (("requires", B),), (("requires", B), ("requires", B), ("author", F))
    four = (*three, ("license", F))
    scored = parts(embedder, question, "rich", one, three, four)
    assert [(p["unnamed"], p["missing"]) for p in scored] == [(2.0, 0.0), (0.0, 0.0), (1.0, 0.0)]
    assert scored[1]["total"] > max(scored[0]["total"], scored[2]["total"])
    named = parts(embedder, "who is the author of the packages that require rich", "rich", one,
                  (("requires", B), ("author", F)))
    assert named[0]["unnamed"] == 0.0 and named[0]["missing"] == 1.0  # a word names a relation: as before


def test_a_word_that_what_is_asked_owns_stands_for_the_last_step(embedder: Embedder) -> None:
    """"name the people whose packages require redis": "require" names `requires`, nothing
    names `author`, and the one-step path answered with the packages (the packages tuning
    part's 2-hop misses without a memory). "packages" after "whose" is what the people own:
    its link to them, `author`, is the chain's last step."""
    question = "name the people whose packages require redis"
    one, two = (("requires", B),), (("requires", B), ("author", F))
    there_and_back = (("requires", B), ("requires", F))  # names both its steps, and asks for no one
    scored = parts(embedder, question, "redis", one, two, there_and_back)
    assert [(p["unnamed"], p["skipped"]) for p in scored] == [(0.0, 1.0), (0.0, 0.0), (0.0, 0.0)]
    assert scored[1]["total"] > max(scored[0]["total"], scored[2]["total"])
    # where the graph's kinds name the step reaching the people, they say which it is
    kinds = PathScorer(embedder, ScoreWeights(), mask_question(question, ["redis"]), None, [], None,
                       asked_kind_steps=[("author", F)])
    status = (("requires", B), ("development_status", F))
    assert [p["unnamed"] for p in kinds.score([(path, {}, len(path)) for path in (two, status)])] == [0.0, 1.0]
    # owned by no asked word, a spare word excuses no last step
    scored = parts(embedder, "name the packages of the people that require redis", "redis", one, two)
    assert scored[1]["unnamed"] == 1.0


def test_the_bare_subject_of_do_is_no_link_so_one_verb_asks_for_one_step(embedder: Embedder) -> None:
    """"what do people pay with in Comoros": no word names `currency`, and "people" counted
    as a second link, so the path on to the currency's `minor_units` explained both words and
    won (the languages and geo tuning parts' 1-hop misses). "people" says who pays."""
    one, two = (("currency", F),), (("currency", F), ("minor_units", F))
    scored = parts(embedder, "what do people pay with in Comoros", "Comoros", one, two)
    assert [p["unnamed"] for p in scored] == [0.0, 1.0]
    assert scored[0]["total"] > scored[1]["total"]


def test_where_no_word_names_a_relation_the_verb_beside_the_topic_reads_the_first_steps_way(
        embedder: Embedder) -> None:
    """"the packages that *depend* on X" require X, though "depend" does not name `requires`
    (0.44 alike): the link word nearest the topic stands for the first step, and a relation
    the graph chains is walked as its verb reads it (the packages tuning part's 3-hop misses
    walked it forwards, to X's own requirements)."""
    question = "who wrote the packages that depend on packages that depend on rich"
    backward = (("requires", B), ("requires", B), ("author", F))
    forward = (("requires", F), ("requires", F), ("author", F))
    assert [p["way"] for p in parts(embedder, question, "rich", backward, forward)] == [0.0, 1.0]


def test_where_link_words_count_the_steps_a_synthesised_vote_for_another_length_is_void(
        embedder: Embedder) -> None:
    """"which libraries do the projects of X use" has two link words and names no relation;
    the synthesised memory, nearest "what are the packages of X", voted for the one-step
    path to X's own packages (the packages development phrasings). Its vote stands for a
    path as long as the link words count; a labelled memory's vote stands either way."""
    question = mask_question("which libraries do the projects of Ann use", ["Ann"])
    own = PathCandidate(seed="Ann", steps=[("author", B)], hops=[["rich"]], text="", phase="topic")
    used = own.model_copy(update={"steps": [("author", B), ("requires", F)], "hops": [["rich"], ["pygments"]]})
    vote = [PriorChain(steps=[("author", B)], weight=0.9, depth=1),
            PriorChain(steps=[("author", B), ("requires", F)], weight=0.1, depth=2)]
    synthetic = PathScorer(embedder, ScoreWeights(), question, None, vote, None, synthetic_prior=True)
    ranked = synthetic.rank([own, used])
    assert ranked[0].steps == used.steps and ranked[1].score_parts["memory"] == 0.0
    assert ranked[0].score_parts["memory"] == 0.1
    labelled = PathScorer(embedder, ScoreWeights(), question, None, vote, None).rank([own, used])
    assert labelled[0].steps == own.steps and labelled[0].score_parts["memory"] == 0.9


def test_a_passive_participle_reads_a_chained_relation_from_what_by_leads_to(embedder: Embedder) -> None:
    """"under what license are the packages *required* by the packages that X requires
    released": the packages "by" leads to require the ones before "required", so the chain
    walks `requires` forwards twice. A walk there and back reads "required" backwards
    (`way`), where before it outscored the chain (packages 3-hop tuning part). The topic's
    own verb is read as before ("required by X"), and a relation the graph does not chain
    is not read."""
    question = "under what license are the packages required by the packages that X requires released"
    chain = (("requires", F), ("requires", F), ("license", F))
    there_and_back = (("requires", F), ("requires", B), ("license", F))
    scored = parts(embedder, question, "X", chain, there_and_back)
    assert [p["way"] for p in scored] == [0.0, 1.0]
    assert scored[0]["total"] > scored[1]["total"]
    by_topic = parts(embedder, "which packages are required by the packages required by X", "X",
                     (("requires", F), ("requires", F)), (("requires", F), ("requires", B)),
                     (("requires", B), ("requires", F)))
    assert [p["way"] for p in by_topic] == [0.0, 1.0, 1.0]
    not_chained = scorer(embedder, question, "X").against_participles(there_and_back, set(), ())
    assert not_chained == 0


def test_the_words_saying_what_is_asked_name_no_first_step(embedder: Embedder) -> None:
    """"units built on units built on the dyne measure what *kind* of quantity": "kind",
    nearest the topic of the words naming a relation, names `quantity_kind`, the last step,
    and made every path that did not start on it pay for its first step (the units 3-hop-alt
    tuning part: the one-step path to the dyne's own quantity won). They count as naming a
    relation, so "units" names the first."""
    question = "units built on units built on the dyne measure what kind of quantity"
    assert scorer(embedder, question, "dyne").first_relation(["reference_unit", "quantity_kind"]) == "reference_unit"
    chain, own = (("reference_unit", B), ("reference_unit", B), ("quantity_kind", F)), (("quantity_kind", F),)
    assert [p["first"] for p in parts(embedder, question, "dyne", chain, own)] == [0.0, 1.0]


@pytest.mark.parametrize(("question", "times"), [
    ("what unit defines the unit that defines the unit the X is defined from", 3),
    ("which quantity is measured by the units that are defined from units defined from X", 2),
    ("who made the packages that X made", 2),
    ("what is the capital of the country bordering the country containing X", 0),  # nouns, after "the"
    ("what unit is the X defined from", 0),
])
def test_a_link_word_said_again_says_its_link_again(question: str, times: int) -> None:
    from agent.pog.candidates import link_words, may_name_a_relation, repeated_link

    words = [w.lower() for w in question_tokens(question)]
    candidates = [i for i, w in enumerate(words) if w != "x" and may_name_a_relation(w)]
    assert repeated_link(words, link_words(words, candidates)) == times


def test_a_link_word_said_again_that_names_nothing_is_one_relation_walked_again(embedder: Embedder) -> None:
    """"what unit *defines* the unit that *defines* the unit the dyne is defined from": no
    word names `reference_unit` by its letters ("unit" names `unit_group` as well), and the
    path that turned onto `unit_group` for its last step ranked first (the units 3-hop-alt
    tuning part). One verb three times is one relation walked three times, either way: "who
    *made* the packages that X *made*" walks `author` back to X's packages and on."""
    question = "what unit defines the unit that defines the unit the dyne is defined from"
    chain = (("reference_unit", F),) * 3
    turned = (("reference_unit", F), ("reference_unit", F), ("unit_group", F))
    scored = parts(embedder, question, "dyne", chain, turned)
    assert [p["missing"] for p in scored] == [0.0, 1.0] and scored[0]["total"] > scored[1]["total"]
    made = parts(embedder, "who made the packages that pint made", "pint",
                 (("author", B), ("author", F)), (("author", B), ("requires", F)))
    assert [p["missing"] for p in made] == [0.0, 1.0]


@pytest.mark.parametrize(("question", "times"), [
    ("units built on units built on the X measure what kind of quantity", 2),
    ("which quantity is measured by the units that are defined from units defined from X", 2),
    ("what unit defines the unit that defines the unit the X is defined from", 2),  # "defined from" is one more
    ("who made the packages that X made", 0),  # "made the", then "made" closing: there and back
    ("which units are defined from the unit X is defined from", 0),  # the siblings of X
])
def test_a_link_word_said_again_in_one_phrase_says_its_link_the_same_way(question: str, times: int) -> None:
    from agent.pog.candidates import link_words, may_name_a_relation, repeated_phrase

    words = [w.lower() for w in question_tokens(question)]
    candidates = [i for i, w in enumerate(words) if w != "x" and may_name_a_relation(w)]
    assert repeated_phrase(words, link_words(words, candidates)) == times


def test_a_phrase_said_again_is_no_walk_there_and_back(embedder: Embedder) -> None:
    """"units built on units built on the centimeter measure what kind of quantity": the
    walk to the centimeter's system along `base_unit` and back to the system's other units
    walks one relation twice, and ranked first (units 3-hop-alt tuning part, both modes).
    One phrase twice walks one relation twice the same way: `reference_unit` back to the
    units built on the centimeter, and back again. Where the question asks for siblings,
    a walk there and back explains the phrase said twice."""
    question = "units built on units built on the centimeter measure what kind of quantity"
    chain = (("reference_unit", B), ("reference_unit", B), ("quantity_kind", F))
    detour = (("base_unit", B), ("base_unit", F), ("quantity_kind", F))
    scored = parts(embedder, question, "centimeter", chain, detour)
    assert [p["missing"] for p in scored] == [0.0, 1.0] and scored[0]["total"] > scored[1]["total"]
    same = parts(embedder, "which units are built on the same units as units built on the centimeter", "centimeter",
                 (("reference_unit", B), ("reference_unit", F)), (("reference_unit", B), ("reference_unit", B)))
    assert same[0]["missing"] == 0.0


def test_the_subject_of_do_is_no_answer_and_the_verb_it_ends_on_is_the_last_step(embedder: Embedder) -> None:
    """"what does the unit that defines the reference unit of the arcsecond measure" asks
    what a unit measures, not for a unit: read as asking for units, the one step to the
    arcsecond's reference unit explained it, and ranked first (units 3-hop-alt tuning part,
    both modes). The verb it ends on names the last step: on to what the unit that defines
    that unit measures."""
    question = "what does the unit that defines the reference unit of the arcsecond measure"
    one, two = (("reference_unit", F),), (("reference_unit", F), ("reference_unit", F))
    chain = (*two, ("quantity_kind", F))
    scored = parts(embedder, question, "arcsecond", one, two, chain)
    assert max(scored, key=lambda p: p["total"]) is scored[2] and scored[0]["missing"] > 0


@pytest.mark.parametrize(("chain_parts", "answers"), [({}, ["Angle"]), ({"unnamed": 1.0}, None)])
def test_the_models_pick_of_a_chains_middle_is_no_answer_where_the_path_to_it_leaves_a_named_word_out(
        chain_parts: dict[str, float], answers: list[str] | None) -> None:
    """"units derived from the arcminute measure what" (units 2-hop tuning part, mode (b)):
    the chain on to the quantity kind explains every word, the path to the units derived
    from the arcminute leaves "measure" unexplained and scores within the margin, and the
    model names the arcsecond. The chain's end answers; where the chain is not explained
    whole, the pick of its middle stands (rule 5 answers with the path up to it)."""
    from agent.pog.answering import _named_middle_of_chain

    chain = PathCandidate(seed="arcminute", steps=[("reference_unit", B), ("quantity_kind", F)],
                          hops=[["arcsecond"], ["Angle"]], text="", phase="topic", depth=2, score=0.484,
                          score_parts=chain_parts)
    middle = PathCandidate(seed="arcminute", steps=[("reference_unit", B)], hops=[["arcsecond"]], text="",
                           phase="topic", depth=1, score=0.437, score_parts={"missing": 1.0})
    names = {"arcsecond": "arcsecond", "Angle": "Angle"}
    found = _named_middle_of_chain(["arcsecond"], [chain], [chain, middle], names, "kg", 0.05, lambda c: True)
    assert (found and found["answers"]) == answers


@pytest.mark.parametrize(("question", "one"), [
    ("what is the symbol of the unit the X is defined from", True),
    ("how is the unit behind the X abbreviated", True),
    ("units derived from the X measure what", False),  # "units": the chain passes through many
    ("what is the licence of the package that X requires", False),  # "requires" reads as a plural: no reading
    ("which unit is the unit that the X is based on defined from", False),  # each "unit" is what is asked
    ("what is the religion of X 's mother", False),  # the topic's own phrase, and what is asked: nothing else
])
def test_a_question_names_its_chains_middle_in_the_singular(question: str, one: bool) -> None:
    from agent.pog.candidates import says_one

    words = [w.lower() for w in question_tokens(question)]
    phrase = topic_phrase_words(words, words.index("x"))
    asked = frozenset(i for i, w in enumerate(words) if w in set(asked_words(question))) - phrase
    assert says_one(words, asked, phrase) is one


def test_a_chain_named_in_the_singular_passes_through_one_entity(embedder: Embedder) -> None:
    """"what is the symbol of the unit the yard is defined from": "defined from" names no
    relation, so nothing read which way to walk `reference_unit`, and the walk back to the
    seven units defined from the yard ranked first (units 2-hop tuning part, both modes).
    "the unit" names one: the yard's reference unit, the metre. Not where the question
    names the middle in the plural ("units derived from the yard measure what"), and two
    are too few to tell (a person's parents)."""
    defined_from = ["cubic yard", "foot", "inch", "jute", "mile", "square yard", "fathom"]
    back = PathCandidate(seed="yard", steps=[("reference_unit", B), ("symbol", F)],
                         hops=[defined_from, ["cu_yd", "ft", "in", "mi", "sq_yd", "ftm"]], text="", phase="topic",
                         depth=2)
    forward = PathCandidate(seed="yard", steps=[("reference_unit", F), ("symbol", F)], hops=[["meter"], ["m"]],
                            text="", phase="topic", depth=2)

    def number(question: str, *candidates: PathCandidate) -> list[float]:
        ranked = scorer(embedder, question, "yard").rank(list(candidates))
        return [next(c for c in ranked if c.steps == given.steps).score_parts["number"] for given in candidates]

    assert number("what is the symbol of the unit the yard is defined from", back, forward) == [1.0, 0.0]
    assert number("what are the symbols of units derived from the yard", back, forward) == [0.0, 0.0]
    parents = back.model_copy(update={"hops": [["mother", "father"], ["cu_yd", "ft"]]})
    assert number("what is the symbol of the unit the yard is defined from", parents, forward) == [0.0, 0.0]
    # from several to many: the graph's own shape (the debye is defined from two units, and they from three)
    several = PathCandidate(seed="debye", steps=[("reference_unit", F), ("reference_unit", F), ("symbol", F)],
                            hops=[["angstrom", "coulomb"], ["ampere", "meter", "second"], ["A", "m", "s"]], text="",
                            phase="topic", depth=3)
    one = PathCandidate(seed="debye", steps=[("reference_unit", F), ("reference_unit", B)],
                        hops=[["angstrom", "coulomb"], ["abcoulomb"]], text="", phase="topic", depth=2)
    question = "what is the symbol of the unit that the debye 's reference unit is defined from"
    ranked = scorer(embedder, question, "debye").rank([several, one])
    assert all(c.score_parts["number"] == 0.0 for c in ranked)
    # no other way along the same relations through one entity: nothing to tell the way by
    assert number("what is the symbol of the unit the yard is defined from", back) == [0.0]


def test_the_verb_a_question_ends_on_names_the_relation_most_alike_it(embedder: Embedder) -> None:
    """"what does the unit that defines the reference unit of the arcsecond measure" ends
    on "measure", which names no relation by its letters; it named any last step, and the
    walk on to the degree's symbol ranked above the one to its quantity kind, nearer the
    question's embedding (units 3-hop-alt tuning part, both modes). The verb names the last
    step whose relation's words are most alike it: "measure" is nearest "quantity kind",
    "abbreviated" nearest "symbol"."""
    chain = (("reference_unit", F), ("reference_unit", F))
    to_symbol, to_kind = (*chain, ("symbol", F)), (*chain, ("quantity_kind", F))
    scored = parts(embedder, "what does the unit that defines the reference unit of the arcsecond measure",
                   "arcsecond", to_symbol, to_kind)
    assert [p["unnamed"] for p in scored] == [1.0, 0.0] and scored[1]["total"] > scored[0]["total"]
    abbreviated = parts(embedder, "how is the unit behind the gallon abbreviated", "gallon",
                        (("reference_unit", F), ("symbol", F)), (("reference_unit", F), ("quantity_kind", F)))
    assert [p["unnamed"] for p in abbreviated] == [0.0, 1.0]


def test_a_path_that_leaves_a_word_out_is_no_answer_beside_an_explained_chain_within_the_margin(
        embedder: Embedder) -> None:
    """"units derived from the kilogram measure what" (units 2-hop tuning part, mode (a)):
    the one step to the units derived from the kilogram leaves "measure" out and ranks
    0.001 above the walk on to their quantity kind, which the words explain whole; the
    model names a unit derived from it. Beside the chain, that path is no answer, best or
    not, and the unit is the chain's middle: the chain answers."""
    derived = ["force kilogram", "metric ton"]
    names = {e: e for e in ("kilogram", *derived, "Mass", "Force")}
    step = PathCandidate(seed="kilogram", steps=[("reference_unit", B)], hops=[derived], text="", phase="topic",
                         depth=1, score=0.687, score_parts={"missing": 1.0})
    chain = PathCandidate(seed="kilogram", steps=[("reference_unit", B), ("quantity_kind", F)],
                          hops=[derived, ["Force", "Mass"]], text="", phase="topic", depth=2, score=0.686,
                          score_parts={})
    context = PoGContext(store_of([("force kilogram", "reference_unit", "kilogram"),
                                   ("metric ton", "reference_unit", "kilogram"),
                                   ("force kilogram", "quantity_kind", "Force"), ("metric ton", "quantity_kind", "Mass")]),
                         scripted(answer="ans: force kilogram"), embedder, PoGConfig())
    update = answer_from_paths({"question": "units derived from the kilogram measure what", "kept": [step, chain],
                                "names": names, "evidence": "", "phase": "topic"}, Runtime(context=context))
    assert update["sufficient"] and set(update["answers"]) <= {"Force", "Mass"} and update["answers"]
