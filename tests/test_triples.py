"""The triple pipeline with and without path pooling, on the film KG, with a scripted model."""

from __future__ import annotations

import pytest

from agent.embeddings import Embedder
from agent.linking import Entity
from agent.optional_nodes.config import PoolingConfig
from agent.triples.config import TriplesConfig
from agent.triples.context import TriplesContext
from agent.triples.graph import build_graph, run_question
from tests.pog_fixture import film_store, scripted


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def ask(embedder: Embedder, question: str, topics: tuple[str, ...], reply: str = "ans: Penny Marshall",
        **config: object):
    llm = scripted(answer=reply, triples=reply)
    state = run_question(TriplesContext(film_store(), llm, embedder, TriplesConfig(**config)), question,
                         [Entity(id=t, name=t) for t in topics])
    return state, llm


def test_the_best_scored_triples_are_shown_and_the_answer_read_from_the_reply(embedder: Embedder) -> None:
    state, llm = ask(embedder, "who directed Big", ("Big",), top_k=5)
    assert state["answers"] == ["Penny Marshall"] and state["source"] == "kg"
    assert len(state["triples"]) == 5
    assert "Big -> directed_by -> Penny Marshall" in [t.text for t in state["triples"]]
    assert [t.score for t in state["triples"]] == sorted((t.score for t in state["triples"]), reverse=True)  # best first
    prompt = llm.calls[0][-1]["content"]
    assert "Big -> directed_by -> Penny Marshall" in prompt and state["prompt_kind"] == "answer_triples"
    assert [e["node"] for e in state["events"]] == ["link_topics", "retrieve_triples", "answer"]


def test_path_pooling_reorders_best_last_and_merges_adjacent_triples(embedder: Embedder) -> None:
    state, llm = ask(embedder, "who directed the films Tom Hanks acted in", ("Tom Hanks",), reply="ans: Ron Howard",
                     top_k=8, pooling=PoolingConfig(enabled=True))
    assert "pool_paths" in [e["node"] for e in state["events"]]
    pooled = [t.pooled for t in state["triples"]]
    assert all(p is not None for p in pooled) and pooled == sorted(pooled)  # ascending: the best is last
    assert state["prompt_kind"] == "pog_answer"
    assert state["evidence"] in llm.calls[0][-1]["content"]
    assert state["answers"] == ["Ron Howard"]


def test_reselection_pools_a_larger_set_and_keeps_top_k(embedder: Embedder) -> None:
    state, _ = ask(embedder, "who directed the films Tom Hanks acted in", ("Tom Hanks",), top_k=4,
                   pooling=PoolingConfig(enabled=True, reselect_from=20))
    assert len(state["triples"]) == 4
    retrieved = next(e for e in state["events"] if e["node"] == "retrieve_triples")["update"]
    assert len(retrieved["triples"]) == min(20, retrieved["subgraph"]["triples"]) > 4  # pooled from the larger set


def test_no_topic_entity_means_no_triples_and_the_models_own_answer(embedder: Embedder) -> None:
    state, llm = ask(embedder, "who is the tallest person alive", (), reply="ans: someone")
    assert state["triples"] == [] and state["source"] == "llm" and state["answers"] == ["someone"]
    assert "(no facts found)" in llm.calls[0][-1]["content"]


def test_the_optional_node_is_only_in_the_graph_when_enabled() -> None:
    assert "pool_paths" not in build_graph(TriplesConfig()).get_graph().nodes
    assert "pool_paths" in build_graph(TriplesConfig(pooling=PoolingConfig(enabled=True))).get_graph().nodes
