"""PoG as the paper describes it (`preset="paper"`), stage by stage, on hand-built graphs
with a scripted capable model: each test shows a stage finding what today's small-model
route does not."""

from __future__ import annotations

import json

import pytest

from agent import PoGConfig, PoGContext, build_graph, run_question
from agent.embeddings import Embedder
from agent.llm import FakeLLM
from agent.pog.config import PRESETS, ScoreWeights
from agent.pog.state import Entity
from kg_store.memory import MemoryStore
from kg_store.paths import NeighborCache, connect
from kgqa.cli.common import with_pog_flags
from kgqa.settings import Settings
from tests.pog_fixture import analysis, film_store, kinds_asked, scripted, store_of


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def ask(llm: FakeLLM, embedder: Embedder, store: MemoryStore, question: str, topics: tuple[str, ...], **config: object):
    context = PoGContext(store, llm, embedder, PoGConfig(**config))
    return run_question(context, question, [Entity(id=t, name=t) for t in topics])


def judged(answer: str):
    """A model that judges the paths sufficient once `answer` is among them."""
    def reply(prompt: str) -> str:
        shown = prompt.split("Question:")[0]
        return json.dumps({"sufficient": answer in shown, "answers": [answer] if answer in shown else []})
    return reply


# "Noir" is a hub: its films past the reading cap are never seen from the topic's side.
NOIR = [("Quiet Film", "has_genre", "Noir"), *((f"Noir Film {i}", "has_genre", "Noir") for i in range(150)),
        ("The Lantern Affair", "has_genre", "Noir")]


@pytest.mark.parametrize("search", ["linked", "path_ends"])
def test_phase_two_reaches_a_guessed_answer_past_a_capped_hub_by_linking_it(embedder: Embedder, search: str) -> None:
    llm = scripted(analyse=analysis(2, "Quiet Film -> genre -> Noir -> genre of -> answer"), select='{"paths": [1]}',
                   summarise="Quiet Film is a noir.", judged=judged("The Lantern Affair"),
                   supplement=json.dumps({"predictions": ["The Lantern Affair"],
                                          "chains": ["Quiet Film -> genre -> Noir -> genre of -> The Lantern Affair"]}),
                   predict="ans: The Lantern Affair", knowledge="ans: I do not know")
    state = ask(llm, embedder, store_of(NOIR), "which noir did critics pair with Quiet Film", ("Quiet Film",),
                preset="paper", max_depth=2, expand=False, supplement_search=search)
    if search == "path_ends":  # today's phase 2 only looks at the ends of the topic's own walk
        assert "The Lantern Affair" not in state["answers"]
        return
    assert state["phase"] == "supplement" and state["source"] == "kg+llm"
    assert state["answers"] == ["The Lantern Affair"]
    assert state["answer_path"].text == "Quiet Film -> has_genre -> Noir <- has_genre <- The Lantern Affair"
    assert state["indicator"] == "Quiet Film -> genre -> Noir -> genre of -> The Lantern Affair"  # the new indicator
    assert kinds_asked(llm).count("supplement") == 1


def test_connect_joins_seeds_to_targets_from_both_sides() -> None:
    store = store_of([("A", "r1", "B"), ("B", "r2", "C"), ("D", "r3", "C"), ("A", "r9", "E")])
    joined = connect(NeighborCache(store), ["A"], ["D"], depth=3)
    (group,) = joined.groups
    assert [(s.relation, s.forward) for s in group.chain] == [("r1", True), ("r2", True), ("r3", False)]
    assert group.ends == ["D"] and group.concrete_paths("D") == [["A", "B", "C", "D"]]
    assert {e: joined.names[e] for e in "ABCD"} == {e: e for e in "ABCD"}  # every entity on the path named
    assert connect(NeighborCache(store), ["A"], ["D"], depth=2).groups == []  # three hops apart


CHAIN = [("Seed Lab", "funded_by", "Xavier Fund"), ("Xavier Fund", "managed_by", "Yolanda Trust"),
         ("Yolanda Trust", "awarded", "Zanzibar Prize"), ("Seed Lab", "located_in", "Oslo")]


@pytest.mark.parametrize("rounds", [1, 2])
def test_phase_three_keeps_expanding_while_the_answer_is_not_sufficient(embedder: Embedder, rounds: int) -> None:
    llm = scripted(analyse=analysis(1), summarise="...", judged=judged("Zanzibar Prize"),
                   knowledge="ans: I do not know")
    state = ask(llm, embedder, store_of(CHAIN), "which prize did the trust managing the fund of Seed Lab give",
                ("Seed Lab",), sufficiency="llm", summary="llm", start_depth="model", max_depth=1, supplement=False,
                final_answer="llm", expand_rounds=rounds)
    if rounds == 1:  # one hop from the phase-1 paths reaches the trust, not its prize
        assert "Zanzibar Prize" not in state["answers"] and state["expand_round"] == 1
        return
    assert state["answers"] == ["Zanzibar Prize"] and state["phase"] == "expand" and state["expand_round"] == 2
    assert state["answer_path"].text.endswith("Yolanda Trust -> awarded -> Zanzibar Prize")


def test_the_paper_preset_goes_deeper_on_no_and_shows_the_plan_to_selection(embedder: Embedder) -> None:
    llm = scripted(analyse=json.dumps({"topic_entities": ["Tom Hanks"], "split_questions": ["Which films?", "Who directed them?"],
                                       "indicator": "Tom Hanks -> acted in -> film -> directed by -> answer", "depth": 1}),
                   select='{"paths": [1, 2]}', summarise="...", judged=judged("Ron Howard"))
    state = ask(llm, embedder, film_store(), "who directed the films Tom Hanks acted in", ("Tom Hanks",), preset="paper")
    assert state["predicted_depth"] == 1 and state["depth"] == 2 and state["sufficient"]
    assert state["answers"][0] == "Ron Howard"
    assert kinds_asked(llm) == ["analyse", "select", "summarise", "judged", "select", "summarise", "judged"]
    select_prompt = next(call[-1]["content"] for call in llm.calls if "Which of these knowledge-graph" in call[-1]["content"])
    assert "Plan: Tom Hanks -> acted in -> film -> directed by -> answer" in select_prompt
    assert "- Who directed them?" in select_prompt


# Both topic entities reach Xeno One and Xeno Two, Quinn by one hop and by three.
TWO_TOPICS = [("Pat Director", "made", "Xeno One"), ("Pat Director", "made", "Xeno Two"),
              ("Pat Director", "made", "Xeno Three"), ("Quinn Actor", "starred_in", "Xeno One"),
              ("Quinn Actor", "signed_with", "Middle Studio"), ("Middle Studio", "produced", "Xeno Two")]


@pytest.mark.parametrize("reduction", ["intersection", "shortest"])
def test_two_topic_entities_keep_every_end_they_both_reach_with_the_papers_reduction(embedder: Embedder,
                                                                                     reduction: str) -> None:
    llm = scripted(analyse=analysis(1),
                   judged=json.dumps({"sufficient": True, "answers": ["Xeno One", "Xeno Two"]}))
    state = ask(llm, embedder, store_of(TWO_TOPICS), "which of Pat Director's films is Quinn Actor linked to",
                ("Pat Director", "Quinn Actor"), sufficiency="llm", max_depth=2, reduction=reduction)
    if reduction == "shortest":
        assert state["answers"] == ["Xeno One"]
        return
    assert state["answers"] == ["Xeno One", "Xeno Two"]
    assert "Xeno Three" not in state["answer_path"].text  # the reduction cut what only one topic reaches


@pytest.mark.parametrize("final_answer", ["llm", "best_path"])
def test_when_nothing_sufficed_the_paper_lets_the_model_answer_and_marks_it(embedder: Embedder,
                                                                            final_answer: str) -> None:
    llm = scripted(analyse=analysis(1), judged='{"sufficient": false, "answers": []}', knowledge="ans: Howard Shore")
    state = ask(llm, embedder, film_store(), "who composed the score of Big", ("Big",), sufficiency="llm",
                max_depth=1, supplement=False, expand=False, final_answer=final_answer)
    assert not state["sufficient"]
    if final_answer == "best_path":
        assert state["source"] == "kg" and "knowledge" not in kinds_asked(llm)
        assert state["answer_reason"] == "fallback_best_path"  # the graph's, and said to be a fallback
        return
    # no path holds the name: the model's own knowledge, with no path claimed for it
    assert state["answers"] == ["Howard Shore"] and state["source"] == "llm" and state["answer_path"] is None
    assert state["answer_reason"] == "model_knowledge"
    prompt = llm.calls[-1][-1]["content"]
    assert "Big -> directed_by -> Penny Marshall" in prompt and "who composed the score of Big" in prompt


def test_a_knowledge_answer_that_ends_a_kept_path_keeps_that_path(embedder: Embedder) -> None:
    llm = scripted(analyse=analysis(1), judged='{"sufficient": false, "answers": []}', knowledge="ans: Penny Marshall")
    state = ask(llm, embedder, film_store(), "who was behind Big", ("Big",), sufficiency="llm", max_depth=1,
                supplement=False, expand=False, final_answer="llm")
    assert state["answers"] == ["Penny Marshall"] and state["source"] == "kg+llm"
    assert state["answer_path"].text == "Big -> directed_by -> Penny Marshall"


def test_a_preset_sets_the_knobs_it_names_and_every_knob_given_overrides_it(monkeypatch: pytest.MonkeyPatch) -> None:
    paper = PoGConfig(preset="paper")
    assert (paper.strategy, paper.summary, paper.sufficiency, paper.final_answer, paper.start_depth) == (
        "fuzzy+precise", "llm", "llm", "llm", "model")
    assert PoGConfig(preset="paper", strategy="fuzzy").strategy == "fuzzy"
    assert PoGConfig(preset="small") == PoGConfig()  # small is today's defaults
    monkeypatch.setenv("KGQA_POG__PRESET", "paper")
    monkeypatch.setenv("KGQA_POG__SUMMARY", "paths")
    from_env = Settings().pog
    assert from_env.summary == "paths" and from_env.sufficiency == "llm"
    flagged = with_pog_flags(Settings(), strategy="fuzzy+branch").pog  # a flag on top keeps the env's preset
    assert flagged.strategy == "fuzzy+branch" and flagged.final_answer == "llm" and flagged.summary == "paths"
    monkeypatch.delenv("KGQA_POG__PRESET")
    assert with_pog_flags(Settings(), preset="paper").pog.reduction == "intersection"
    nodes = set(build_graph(PoGConfig(preset="paper")).get_graph().nodes)
    assert {"supplement_from_linked_guesses", "answer_with_knowledge"} <= nodes and "supplement_with_llm" not in nodes
    assert "answer_with_knowledge" not in set(build_graph(PoGConfig()).get_graph().nodes)


@pytest.mark.parametrize(("env", "flag"), [(None, "paper"), ("small", "paper"), ("paper", "small"), ("paper", None),
                                           ("small", None), (None, "small")])
def test_a_preset_sets_every_knob_it_owns_and_a_flag_beats_the_environment(
        monkeypatch: pytest.MonkeyPatch, env: str | None, flag: str | None) -> None:
    """`KGQA_POG__PRESET=paper` with `--preset small` kept the paper's knobs, and `paper`
    kept the small model's scoring weights and answer margin."""
    if env:
        monkeypatch.setenv("KGQA_POG__PRESET", env)
    monkeypatch.setenv("KGQA_POG__WEIGHTS__MEMORY", "3")  # a knob given explicitly stays, whatever the preset
    config = with_pog_flags(Settings(), preset=flag).pog
    chosen = flag or env or "small"
    owned = PRESETS[chosen]
    assert config.preset == chosen
    assert all(getattr(config, knob) == value for knob, value in owned.items() if knob != "weights")
    expected_weights = {**ScoreWeights().model_dump(), **owned["weights"], "memory": 3.0}  # type: ignore[dict-item]
    assert config.weights.model_dump() == expected_weights
    assert set(PRESETS["small"]) == set(PRESETS["paper"])  # every knob one preset owns, the other sets too
    assert all(getattr(PoGConfig(), knob) == value for knob, value in PRESETS["small"].items() if knob != "weights")


AIRPORTS = [("Nijmegen", "served_by", "Weeze Airport"), ("Weeze Airport", "in_country", "Germany"),
            ("France", "borders", "Germany"), ("Germany", "continent", "Europe"), ("France", "continent", "Europe")]


def test_an_extended_path_carries_only_joins_that_hold_at_its_own_end() -> None:
    """Phase 3 copied a path's joins onto its new ends: `... -> Germany -> continent ->
    Europe <- borders <- France`, a fact the graph does not hold. The join walks on by the
    same step instead, and an entity expanded once is not expanded again."""
    from agent.pog.candidates import extend, path_text
    from agent.pog.state import PathCandidate

    store = store_of(AIRPORTS)
    names = {e: e for triple in AIRPORTS for e in (triple[0], triple[2])}
    steps, hops = [("served_by", True), ("in_country", True)], [["Weeze Airport"], ["Germany"]]
    joins = {"France": [("borders", True)]}
    joined = PathCandidate(seed="Nijmegen", steps=steps, hops=hops, joins=joins, phase="topic",
                           text=path_text("Nijmegen", steps, hops, names, 8, joins))
    assert joined.text.endswith("Germany <- borders <- France")
    visited: set[str] = set()
    extended = extend(NeighborCache(store), [joined], names, names_per_set=8, visited=visited)
    to_europe = next(c for c in extended if c.steps[-1] == ("continent", True))
    assert to_europe.joins == {"France": [("borders", True), ("continent", True)]}
    assert to_europe.text == ("Nijmegen -> served_by -> Weeze Airport -> in_country -> Germany -> continent -> "
                              "Europe <- continent <- ... <- borders <- France")
    assert "Europe <- borders <- France" not in " ".join(c.text for c in extended)
    assert visited == {"Germany"} and extend(NeighborCache(store), [joined], names, names_per_set=8,
                                             visited=visited) == []  # Germany was expanded already


def test_phase_three_expands_phase_twos_paths_too(embedder: Embedder) -> None:
    """The paper expands the unvisited entities of every kept path; phase 3 read only
    phase 1's, so what phase 2's linked guess reached was never walked on."""
    from langgraph.runtime import Runtime

    from agent.pog.candidates import path_text
    from agent.pog.exploration import expand_nodes
    from agent.pog.state import PathCandidate

    store = store_of(AIRPORTS)
    names = {e: e for triple in AIRPORTS for e in (triple[0], triple[2])}

    def path(seed: str, steps: list, hops: list, phase: str) -> PathCandidate:
        return PathCandidate(seed=seed, steps=steps, hops=hops, phase=phase,
                             text=path_text(seed, steps, hops, names, 8))

    topic = path("Nijmegen", [("served_by", True)], [["Weeze Airport"]], "topic")
    guessed = path("France", [("borders", True)], [["Germany"]], "supplement")
    context = PoGContext(store, FakeLLM(lambda messages: ""), embedder, PoGConfig())
    update = expand_nodes({"question": "q", "names": names, "phase": "supplement", "topic_kept": [topic],
                           "kept": [guessed]}, Runtime(context=context))
    assert {c.seed for c in update["candidates"]} == {"Nijmegen", "France"}
    assert any(c.text == "France -> borders -> Germany -> continent -> Europe" for c in update["candidates"])
    assert update["expanded"] == ["Germany", "Weeze Airport"]


def test_a_guess_links_only_to_a_name_alike_enough(embedder: Embedder) -> None:
    """Phase 2 linked a guessed name to any entity the name search proposed: "Tom" (no
    such entity) stood for Tom Hanks."""
    from agent.linking import link_entities

    store = film_store()
    assert [e.id for e in link_entities(store, embedder, ["Tom"])[0]] == ["Tom Hanks"]  # no threshold: anything
    assert link_entities(store, embedder, ["Tom"], min_similarity=PoGConfig().guess_link_similarity)[0] == []
    assert [e.id for e in link_entities(store, embedder, ["tom hanks"],
                                        min_similarity=PoGConfig().guess_link_similarity)[0]] == ["Tom Hanks"]


def test_the_bidirectional_search_counts_a_cvt_hop_once_as_phase_one_does() -> None:
    """Tom Hanks -> film.actor.film -> (performance) -> film.performance.film -> Forrest
    Gump is one hop to phase 1; phase 2's search counted it as two, so at D_max = 1 the
    guess was never joined."""
    joined = connect(NeighborCache(film_store()), ["m.hanks"], ["m.gump"], depth=1)
    assert [[s.relation for s in g.chain] for g in joined.groups] == [["film.actor.film", "film.performance.film"]]


def test_phase_ones_paths_are_scored_again_when_the_indicator_changes(embedder: Embedder) -> None:
    """Phase 2 replaces the indicator with the model's reasoning chains; the answer compared
    phase 1's best path, scored under the old indicator, with later paths scored under the
    new one."""
    from langgraph.runtime import Runtime

    from agent.pog.pruning import prune_paths
    from agent.pog.scoring import PathScorer
    from agent.pog.state import PathCandidate

    topic = PathCandidate(seed="Big", steps=[("directed_by", True)], hops=[["Penny Marshall"]], phase="topic",
                          text="Big -> directed_by -> Penny Marshall", score=9.0)
    later = PathCandidate(seed="Big", steps=[("release_year", True)], hops=[["1988"]], phase="supplement",
                          text="Big -> release_year -> 1988")
    state = {"question": "when was Big released", "phase": "supplement", "indicator": "Big -> release year -> answer",
             "topics": [Entity(id="Big", name="Big")], "names": {"Big": "Big", "Penny Marshall": "Penny Marshall",
                                                                  "1988": "1988"},
             "candidates": [later], "topic_kept": [topic]}
    context = PoGContext(film_store(), FakeLLM(lambda messages: ""), embedder, PoGConfig())
    update = prune_paths(state, Runtime(context=context))
    expected = PathScorer.for_state(embedder, context.config.weights, state).rank([topic])[0].score
    assert update["topic_kept"][0].score == expected != 9.0
