"""Path pooling inside PoG: the kept groups' concrete facts, pooled and reranked for the answer."""

from __future__ import annotations

import pytest

from agent import PoGConfig, PoGContext, build_graph, run_question
from agent.embeddings import Embedder
from agent.optional_nodes.config import PoolingConfig
from agent.pog.pooling import path_facts
from agent.pog.state import Entity, PathCandidate
from kg_store import Triple
from kg_store.paths import NeighborCache
from tests.pog_fixture import analysis, film_store, kinds_asked, scripted


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def candidate(seed: str, steps: list[tuple[str, bool]], hops: list[list[str]]) -> PathCandidate:
    return PathCandidate(seed=seed, steps=steps, hops=hops, text="-", phase="topic")


def test_a_groups_facts_are_exactly_the_edges_between_its_hops() -> None:
    path = candidate("Tom Hanks", [("starred_actors", False), ("directed_by", True)],
                     [["Apollo 13", "Big", "Splash"], ["Penny Marshall", "Ron Howard"]])
    facts = path_facts(path, NeighborCache(film_store()))
    assert set(facts) == {
        Triple("Apollo 13", "starred_actors", "Tom Hanks"), Triple("Big", "starred_actors", "Tom Hanks"),
        Triple("Splash", "starred_actors", "Tom Hanks"), Triple("Apollo 13", "directed_by", "Ron Howard"),
        Triple("Big", "directed_by", "Penny Marshall"), Triple("Splash", "directed_by", "Ron Howard")}
    assert len(facts) == 6  # no edge twice, none off the path (Cocoon is Ron Howard's too)


def test_facts_through_an_unnamed_cvt_node_are_kept_and_the_cap_holds() -> None:
    path = candidate("m.hanks", [("film.actor.film", True), ("film.performance.film", True)],
                     [["m.cvt1", "m.cvt2"], ["m.castaway", "m.gump"]])
    facts = path_facts(path, NeighborCache(film_store()))
    assert Triple("m.cvt1", "film.performance.film", "m.gump") in facts and len(facts) == 4
    assert len(path_facts(path, NeighborCache(film_store()), limit=3)) == 3


def test_with_pooling_the_answer_reads_the_kept_paths_best_facts_best_last(embedder: Embedder) -> None:
    llm = scripted(analyse=analysis(2), answer="ans: Ron Howard")
    config = PoGConfig(pooling=PoolingConfig(enabled=True), pooled_facts=4)
    state = run_question(PoGContext(film_store(), llm, embedder, config),
                         "who directed the films Tom Hanks acted in", [Entity(id="Tom Hanks", name="Tom Hanks")])
    assert [e["node"] for e in state["events"]][2:4] == ["prune_paths", "pool_kept_paths"]
    assert kinds_asked(llm) == ["analyse", "answer"]
    assert set(state["answers"]) == {"Ron Howard", "Penny Marshall"} and state["source"] == "kg"
    facts = state["pooled_facts"]
    assert len(facts) == 4 and facts[-1]["pooled"] == max(f["pooled"] for f in facts)
    prompt = llm.calls[1][-1]["content"]
    assert state["pooled_evidence"] in prompt and "Path 1:" not in prompt
    assert " -> directed_by -> " in state["pooled_evidence"]


def test_pooling_is_in_the_graph_only_when_enabled() -> None:
    assert "pool_kept_paths" not in build_graph(PoGConfig()).get_graph().nodes
    assert "pool_kept_paths" in build_graph(PoGConfig(pooling=PoolingConfig(enabled=True))).get_graph().nodes
