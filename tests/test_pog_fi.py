"""GraphRAG-FI inside the PoG graph: the filter's picks lead the answer prompt as High
Priority Paths, in PoG's own order; the integration keeps graph and model-only answers by their confidence."""

from __future__ import annotations

import json
import math
import re

import pytest

from agent import PoGConfig, PoGContext, build_graph, run_question
from agent.embeddings import Embedder
from agent.llm.base import LLMReply
from agent.optional_nodes.graphrag_fi import ScoredAnswer
from agent.pog.graphrag_fi import STRUCTURAL, _confidence
from agent.pog.state import Entity
from tests.pog_fixture import analysis, film_store, kinds_asked, scripted


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def ask(llm, embedder, **fi: object):
    context = PoGContext(film_store(), llm, embedder, PoGConfig(fi=fi, start_depth="model"))  # 1-hop paths only
    return run_question(context, "who directed Big", [Entity(id="Big", name="Big")])


def picks(*relations: str):
    """A fine-filter reply that picks the listed paths with these relations, in this order."""
    def reply(prompt: str) -> str:
        listed = {text: int(n) for n, text in re.findall(r"^(\d+)\. (.*)$", prompt, re.MULTILINE)}
        return json.dumps({"paths": [next(n for text, n in listed.items() if r in text) for r in relations]})
    return reply


def spoken(text: str, probability: float) -> LLMReply:
    """A reply whose answer tokens have this probability."""
    tokens = [("ans", 0.0), (":", 0.0)] + [(f" {word}", math.log(probability)) for word in text.split()]
    return LLMReply(text=f"ans: {text}", logprobs=tokens)


def test_the_models_pick_leads_the_answer_prompt_as_high_priority(embedder) -> None:
    llm = scripted(analyse=analysis(1), fi_filter=picks("release_year"), answer="ans: 1988")
    state = ask(llm, embedder, filter=True, keep=10)
    events = [e["node"] for e in state["events"]]
    assert events.index("filter_paths_fi") == events.index("prune_paths") + 1
    assert state["kept"][0].text == "Big -> release_year -> 1988"
    assert state["evidence"].startswith("High Priority Paths:\nPath 1: Big -> release_year -> 1988\n\nAdditional Paths:")
    assert state["fi"]["coarse_filter"] == "similarity" and len(state["fi"]["coarse"]) == len(state["candidates"])
    assert state["fi"]["high_priority"] == ["Big -> release_year -> 1988"]
    assert kinds_asked(llm) == ["analyse", "fi_filter", "answer"] and state["answers"] == ["1988"]


def test_the_models_picks_lead_in_pogs_own_order_not_the_models(embedder) -> None:
    """The filter chooses, PoG's ranking orders: picks the model names in reverse ranking
    order are still listed in the ranking's order (the 0.5B model answers from the first)."""
    llm = scripted(analyse=analysis(1), answer="ans: Penny Marshall")
    ranking = [c.text for c in ask(llm, embedder)["kept"]]
    relations = [text.split(" -> ")[1] for text in ranking[:2]]
    llm = scripted(analyse=analysis(1), fi_filter=picks(*reversed(relations)), answer="ans: Penny Marshall")
    state = ask(llm, embedder, filter=True, keep=10)
    assert state["fi"]["high_priority"] == ranking[:2]
    assert [c.text for c in state["kept"]][:2] == ranking[:2]
    assert state["evidence"].startswith(f"High Priority Paths:\nPath 1: {ranking[0]}\nPath 2: {ranking[1]}\n\n")


def test_the_coarse_filter_keeps_its_best_and_garbage_from_the_model_keeps_pogs_order(embedder) -> None:
    llm = scripted(analyse=analysis(1), fi_filter="}{ nothing", answer="ans: Penny Marshall")
    state = ask(llm, embedder, filter=True, keep=2)
    coarse, ranking = state["fi"]["coarse"], [c.text for c in state["candidates"]]
    positions = [ranking.index(c["text"]) for c in coarse]
    assert len(coarse) == 2 and positions == sorted(positions)
    assert state["fi"]["high_priority"] == [] and [c.text for c in state["kept"]] == [c["text"] for c in coarse]
    assert state["evidence"].startswith("High Priority Paths:\n(none)") and state["answers"] == ["Penny Marshall"]


def test_an_unsure_graph_answer_gives_way_to_a_sure_model_answer(embedder) -> None:
    llm = scripted(analyse=analysis(1), answer=lambda _: spoken("Penny Marshall", 0.3),
                   io=lambda _: spoken("Garry Marshall", 0.99))
    state = ask(llm, embedder, integrate=True, tau_graph=0.5, tau_llm=0.9)
    assert state["answers"] == ["Garry Marshall"] and state["source"] == "llm" and state["answer_entities"] == []
    fates = {(d["source"], d["answer"]): (round(d["probability"], 2), d["kept"]) for d in state["fi"]["integration"]}
    assert fates == {("graph", "Penny Marshall"): (0.3, False), ("llm", "Garry Marshall"): (0.99, True)}
    assert state["events"][-1]["node"] == "integrate_answers_fi"


@pytest.mark.parametrize(("graph_confidence", "fallback"), [(0.9, [False, False]), (0.3, [True, False])])
def test_the_graph_answer_stays_and_an_unsure_model_answer_is_dropped(embedder, graph_confidence, fallback) -> None:
    """A sure graph answer passes tau_graph; an unsure one stands as the fallback when the
    model's own answer is unsure too."""
    llm = scripted(analyse=analysis(1), answer=lambda _: spoken("Penny Marshall", graph_confidence),
                   io=lambda _: spoken("Garry Marshall", 0.4))
    state = ask(llm, embedder, integrate=True, tau_graph=0.5, tau_llm=0.9)
    assert state["answers"] == ["Penny Marshall"] and state["source"] == "kg"
    assert state["answer_entities"] == ["Penny Marshall"]
    assert [d.get("fallback", False) for d in state["fi"]["integration"]] == fallback


def test_answers_the_model_did_not_name_share_the_named_ones_confidence_or_are_structural() -> None:
    named = [ScoredAnswer("Ron Howard", 0.8)]
    assert _confidence("Ron Howard", ["Ron Howard", "Penny Marshall"], named) == 0.8
    assert _confidence("Penny Marshall", ["Ron Howard", "Penny Marshall"], named) == 0.8  # same path's ends
    assert _confidence("Penny Marshall", ["Penny Marshall"], [ScoredAnswer("Someone Else", 0.9)]) == STRUCTURAL


def test_the_fi_nodes_are_in_the_graph_only_when_enabled() -> None:
    assert not {"filter_paths_fi", "integrate_answers_fi"} & set(build_graph(PoGConfig()).get_graph().nodes)
    both = PoGConfig(fi={"filter": True, "integrate": True}, pooling={"enabled": True})
    nodes = set(build_graph(both).get_graph().nodes)
    assert {"filter_paths_fi", "integrate_answers_fi", "pool_kept_paths"} <= nodes
