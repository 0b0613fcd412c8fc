"""GraphRAG-FI: confidences from token log-probabilities, the integration rule, the
filters inside the triple pipeline, and the attention pass against the model's own."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agent.embeddings import Embedder
from agent.linking import Entity
from agent.llm import FakeLLM
from agent.llm.base import LLMReply
from agent.optional_nodes.config import GraphRAGFIConfig
from agent.optional_nodes.graphrag_fi import (
    ScoredAnswer,
    answer_confidences,
    coarse_filter,
    coarse_trace,
    filter_paths,
    integrate,
    paths_that_fit,
    rog_prompt,
)
from agent.triples.config import TriplesConfig
from agent.triples.context import TriplesContext
from agent.triples.graph import run_question
from tests.pog_fixture import film_store, prompt_kind


def tokens(*pairs: tuple[str, float]) -> list[tuple[str, float]]:
    """(token, probability) pairs as the (token, logprob) pairs a model returns."""
    return [(t, math.log(p)) for t, p in pairs]


def test_an_answers_confidence_is_the_mean_probability_of_its_own_tokens() -> None:
    reply = "ans: Ron Howard\nans: Penny Marshall"
    logprobs = tokens(("ans", 0.99), (":", 0.99), (" Ron", 0.8), (" Howard", 0.6), ("\n", 0.9),
                      ("ans", 0.99), (":", 0.99), (" Penny", 0.3), (" Marshall", 0.5))
    scored = answer_confidences(reply, logprobs)
    assert [s.answer for s in scored] == ["Ron Howard", "Penny Marshall"]
    assert scored[0].probability == pytest.approx(0.7) and scored[1].probability == pytest.approx(0.4)
    assert answer_confidences(reply, None) == [ScoredAnswer("Ron Howard", 0.0), ScoredAnswer("Penny Marshall", 0.0)]


def test_integration_keeps_confident_graph_answers_then_certain_model_answers() -> None:
    graph = [ScoredAnswer("Ron Howard", 0.7), ScoredAnswer("Penny Marshall", 0.4)]
    own = [ScoredAnswer("Steven Spielberg", 1.0 - 1e-9), ScoredAnswer("ron howard", 1.0), ScoredAnswer("Jaws", 0.95)]
    final, decisions = integrate(graph, own, tau_graph=0.5, tau_llm=1.0)
    assert final == ["Ron Howard", "Steven Spielberg"]  # the graph's first; the repeat and the unsure one dropped
    fates = {(d["source"], d["answer"]): d["kept"] for d in decisions}
    assert fates == {("graph", "Ron Howard"): True, ("graph", "Penny Marshall"): False,
                     ("llm", "Steven Spielberg"): True, ("llm", "ron howard"): False, ("llm", "Jaws"): False}
    assert integrate([], [], 0.5, 1.0) == ([], [])


def test_when_no_answer_passes_the_graphs_answers_stand() -> None:
    graph = [ScoredAnswer("Music", 0.33), ScoredAnswer("music", 0.2), ScoredAnswer("Drama", 0.1)]
    final, decisions = integrate(graph, [ScoredAnswer("Action", 0.26)], tau_graph=0.5, tau_llm=1.0)
    assert final == ["Music", "Drama"]
    assert [(d["answer"], d["kept"], d.get("fallback", False)) for d in decisions] == [
        ("Music", True, True), ("music", False, False), ("Drama", True, True), ("Action", False, False)]
    assert integrate([], [ScoredAnswer("Action", 0.26)], 0.5, 1.0)[0] == []  # nothing from the graph: nothing


class FixedScores:
    """A coarse scorer with the scores it is given."""
    name = "fixed"

    def __init__(self, scores: list[float | None]) -> None:
        self.fixed = scores

    def scores(self, question: str, paths: list[str], plain: list[str] | None = None) -> list[float | None]:
        return list(self.fixed)


def test_the_filters_choose_paths_but_keep_the_retrieval_order() -> None:
    listings: list[str] = []

    def model(messages: list[dict]) -> LLMReply:
        listings.append(messages[-1]["content"])
        return LLMReply('{"paths": [3, 1]}')

    paths = ["A -> r -> a", "B -> r -> b", "C -> r -> c", "D -> r -> d"]
    kept, picked, scores = filter_paths(FixedScores([0.1, 0.9, 0.5, 0.7]), FakeLLM(model), "q?", paths, keep=3,
                                        fine=True)
    # the fine filter reads the coarse best first (1. B, 2. D, 3. C) and picks C, then B
    assert listings[0].rstrip().endswith("1. B -> r -> b\n2. D -> r -> d\n3. C -> r -> c")
    assert kept == [1, 2, 3] and picked == [1, 2] and scores == [0.1, 0.9, 0.5, 0.7]


def test_paths_past_the_attention_budget_follow_the_scored_ones_unscored_in_retrieval_order() -> None:
    paths = ["A -> r -> a", "B -> r -> b", "C -> r -> c", "D -> r -> d"]
    characters = len  # a "token" per character, so the budget is easy to reckon
    two = characters(rog_prompt("q?", paths[:2])[0])
    assert paths_that_fit(characters, "q?", paths, two) == 2
    assert paths_that_fit(characters, "q?", paths, two - 1) == 1
    assert paths_that_fit(characters, "q?", paths, 10) == 0
    assert paths_that_fit(characters, "q?", paths, 10_000) == 4
    # A and B scored (B best); C and D past the budget: after them, C before D
    assert coarse_filter([0.2, 0.9, None, None], keep=3) == [1, 0, 2]
    kept, _, scores = filter_paths(FixedScores([0.2, 0.9, None, None]), FakeLLM([]), "q?", paths, keep=3, fine=False)
    assert kept == [0, 1, 2]
    assert coarse_trace(FixedScores([]), "q?", paths, kept, scores) == {
        "coarse_filter": "fixed", "candidates": 4, "scored": 2, "coarse": [
            {"text": "A -> r -> a", "score": 0.2}, {"text": "B -> r -> b", "score": 0.9},
            {"text": "C -> r -> c", "score": None}]}


def test_the_coarse_filter_keeps_the_best_in_order_and_the_prompt_knows_each_span() -> None:
    assert coarse_filter([0.1, 0.5, 0.3, 0.5], keep=3) == [1, 3, 2]
    prompt, spans = rog_prompt("who?", ["A -> r -> B", "C -> s -> D"])
    assert [prompt[a:b] for a, b in spans] == ["A -> r -> B", "C -> s -> D"]
    assert prompt.rstrip().endswith("Question:\nwho?")


def fi_model(picks: str, answer: str, answer_probability: float, own: str, own_probability: float) -> FakeLLM:
    def reply(messages: list[dict]) -> LLMReply:
        prompt = messages[-1]["content"]
        if prompt.startswith("Which of these numbered reasoning paths") or "not valid JSON" in prompt:
            return LLMReply(picks)
        if "High Priority Paths" in prompt:
            text = f"ans: {answer}"
            return LLMReply(text, logprobs=tokens(("ans", 1.0), (":", 1.0), (" " + answer, answer_probability)))
        assert prompt_kind(prompt) == "io"
        return LLMReply(f"ans: {own}", logprobs=tokens(("ans", 1.0), (":", 1.0), (" " + own, own_probability)))

    return FakeLLM(reply)


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def test_the_filter_and_integration_in_the_triple_pipeline(embedder: Embedder) -> None:
    llm = fi_model('{"paths": [2]}', "Ron Howard", 0.9, "Steven Spielberg", 0.5)
    config = TriplesConfig(top_k=12, graphrag_fi=GraphRAGFIConfig(filter=True, keep=5, integrate=True, coarse="similarity"))
    state = run_question(TriplesContext(film_store(), llm, embedder, config),
                         "who directed the films Tom Hanks acted in", [Entity(id="Tom Hanks")])
    fi = state["fi"]
    assert fi["coarse_filter"] == "similarity" and len(fi["coarse"]) == 5 == len(state["triples"])
    # the same facts in the same order as the cosine retrieval's best 5: the filter embeds
    # them in words, as the scorer did, not as the prompt's ids and arrows
    retrieved = next(e["update"]["triples"] for e in state["events"] if e["node"] == "retrieve_triples")
    assert [c["text"] for c in fi["coarse"]] == [t["text"] for t in retrieved[:5]]
    assert [c["score"] for c in fi["coarse"]] == pytest.approx([2 * t["score"] - 1 for t in retrieved[:5]], abs=1e-4)
    assert fi["high_priority"] == [fi["coarse"][1]["text"]]  # the model picked number 2
    answer_prompt = next(c[-1]["content"] for c in llm.calls if "High Priority Paths" in c[-1]["content"])
    high_block = answer_prompt.split("High Priority Paths:\n")[1].split("\n\nAdditional Paths:")[0]
    assert high_block == fi["coarse"][1]["text"]
    # 0.9 >= tau_graph keeps the graph's answer; 0.5 < tau_llm = 1 drops the model's own
    assert state["answers"] == ["Ron Howard"] and state["source"] == "kg"
    assert [(d["answer"], d["kept"]) for d in fi["integration"]] == [("Ron Howard", True), ("Steven Spielberg", False)]
    assert [e["node"] for e in state["events"]] == ["link_topics", "retrieve_triples", "filter_fi", "answer",
                                                     "integrate_answers"]


def test_an_unsure_graph_answer_gives_way_to_a_certain_model_answer(embedder: Embedder) -> None:
    llm = fi_model("}{ garbage", "Ron Howard", 0.2, "Penny Marshall", 1.0)
    config = TriplesConfig(top_k=12, graphrag_fi=GraphRAGFIConfig(filter=True, keep=5, integrate=True, coarse="similarity"))
    state = run_question(TriplesContext(film_store(), llm, embedder, config), "who directed Big", [Entity(id="Big")])
    assert state["fi"]["high_priority"] == []  # garbage from the fine filter: no High Priority paths
    assert state["answers"] == ["Penny Marshall"] and state["source"] == "llm"


@pytest.mark.llm
def test_the_attention_pass_reads_the_same_numbers_as_the_models_eager_attention(tmp_path) -> None:
    from tests.test_local_llm import require_local_model

    require_local_model()
    import torch

    from agent.llm.local import MODELS, assemble
    from agent.optional_nodes.graphrag_fi import AttentionPathScorer

    weights = assemble(MODELS["qwen-0.5b"], tmp_path / "models")
    scorer = AttentionPathScorer(weights.parent, weights.name)
    paths = ["Big -> directed_by -> Penny Marshall", "Big -> release_year -> 1988"]
    prompt, spans = rog_prompt("who directed Big?", paths)
    encoded = scorer.tokenizer(prompt, return_tensors="pt", return_offsets_mapping=True)
    scorer.model.config._attn_implementation = "eager"
    with torch.no_grad():
        eager = scorer.model(input_ids=encoded["input_ids"], output_attentions=True).attentions[scorer.layer][0, :, -1, :]
    assert scorer.layer == scorer.model.config.num_hidden_layers // 2 + 2
    row = scorer.last_token_attention(encoded["input_ids"])
    assert np.allclose(row, eager.numpy(), atol=1e-5)
    offsets = encoded["offset_mapping"][0].tolist()
    expected = []
    for start, end in spans:
        block = eager.numpy()[:, [i for i, (a, b) in enumerate(offsets) if a < end and b > start]]
        expected.append((block.max() + block.mean()) / 2)
    assert scorer.scores("who directed Big?", paths) == pytest.approx(expected, abs=1e-5)
    # With a budget that holds one path, the first is scored as if alone and the second is not
    scorer.max_tokens = scorer.count_tokens(rog_prompt("who directed Big?", paths[:1])[0])
    alone = scorer.scores("who directed Big?", paths[:1])
    first, second = scorer.scores("who directed Big?", paths)
    assert second is None and first == pytest.approx(alone[0], abs=1e-6) and first != pytest.approx(expected[0])
    trace = coarse_trace(scorer, "who directed Big?", paths, [0, 1], [first, second])
    assert trace["scored"] == 1 and trace["attention_tokens"] == scorer.max_tokens


def test_the_fine_filter_prompt_lists_the_best_paths_that_fit_the_models_context() -> None:
    from agent.optional_nodes.graphrag_fi import fine_filter
    from prompts import LISTING_CHARS

    long_paths = [f"Entity {i} -> " + "film.performance.character -> " * 10 + f"End {i}" for i in range(40)]
    llm = FakeLLM(lambda messages: '{"paths": [1, 3, 99]}')
    picked = fine_filter(llm, "who?", long_paths)
    prompt = llm.calls[0][-1]["content"]
    assert "1. Entity 0 ->" in prompt and "40. Entity 39" not in prompt  # best first, the tail left out
    assert len(prompt) < LISTING_CHARS + 1_000
    assert picked == [0, 2]  # numbers past the listing are ignored


def test_the_fine_filter_leaves_room_for_a_reply_that_lists_every_path() -> None:
    # The 0.5B model often lists every path; with a fixed budget its reply to 30 triples was
    # cut inside the list, no JSON, so nothing was ever picked.
    from agent.optional_nodes.graphrag_fi import fine_filter

    paths = [f"Italy -> location.location.contains -> City {i}" for i in range(30)]
    everything = json.dumps({"paths": list(range(1, 31))})
    llm = FakeLLM([everything])
    assert fine_filter(llm, "what currency is used in italy?", paths) == list(range(30))
    assert llm.max_tokens[0] >= len(everything)  # a token is at least one character


@pytest.mark.parametrize("name", ["GRAPHRAG_FI", "FI"])
def test_graphrag_fi_knobs_are_read_under_their_name_and_their_earlier_one(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The knobs are `graphrag_fi` now; an environment written for `fi` keeps working,
    through a flag laid over it and a preset too."""
    from kgqa.cli.common import with_node_flags, with_pog_flags
    from kgqa.settings import Settings

    monkeypatch.setenv(f"KGQA_POG__{name}__INTEGRATE", "true")
    monkeypatch.setenv(f"KGQA_TRIPLES__{name}__KEEP", "7")
    settings = with_pog_flags(with_node_flags(Settings(), fi={"filter": True}), preset="paper")
    assert settings.pog.graphrag_fi.integrate and settings.pog.graphrag_fi.filter
    assert settings.triples.graphrag_fi.keep == 7 and settings.triples.graphrag_fi.filter
