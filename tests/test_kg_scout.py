"""KG-Scout: features, the sampler, the reward parts on hand-built cases, a training run
whose reward rises on a small synthetic task, checkpoints, and the scorer."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from agent.optional_nodes.kg_scout.features import Candidates, linearise, personalised_pagerank, relation_phrase
from agent.optional_nodes.kg_scout.model import PolicyNetwork, sample_without_replacement
from agent.optional_nodes.kg_scout.reward import Reward, reward, shortest_paths
from agent.optional_nodes.kg_scout.training import (
    Example,
    TrainingConfig,
    evaluate,
    learning_rate_schedule,
    load_checkpoint,
    save_checkpoint,
    train,
)
from kg_store import Triple

T = Triple


def test_triples_are_linearised_as_the_thesis_does() -> None:
    assert relation_phrase("location.country.languages_spoken") == "location country languages spoken"
    assert linearise(T("m.1", "film.film.directed_by", "m.2"), {"m.1": "Big"}) == "Big film film directed by m.2"
    assert linearise(T("a", "http://www.w3.org/2000/01/rdf-schema#subClassOf", "b"), {"a": "Volcano", "b": "Landform"}) \
        == "Volcano sub class of Landform"


def test_pagerank_restarts_at_the_topic_entities() -> None:
    ppr = personalised_pagerank([T("a", "r", "b"), T("b", "r", "c"), T("x", "r", "y")], ["a"])
    assert ppr["a"] > ppr["b"] > ppr["c"] > 0 and ppr["x"] == 0
    assert personalised_pagerank([T("a", "r", "b")], ["nowhere"]) == {}


def test_each_draw_has_its_sequential_probability() -> None:
    logits = torch.tensor([2.0, 1.0, 0.5, -1.0, 0.0])
    chosen, log_probs = sample_without_replacement(logits, 3, torch.Generator().manual_seed(0))
    left = list(range(5))
    for index, log_prob in zip(chosen.tolist(), log_probs.tolist(), strict=True):
        expected = logits[index] - torch.logsumexp(logits[left], dim=0)
        assert log_prob == pytest.approx(float(expected), abs=1e-5)
        left.remove(index)
    assert len(set(chosen.tolist())) == 3


# topic a; answers d and e. a-b-d is the reasoning path; c is a detour; e is unreachable
GRAPH = [T("a", "r1", "b"), T("b", "r2", "d"), T("a", "r3", "c"), T("c", "r4", "b"), T("x", "r5", "e")]


def test_reward_parts_by_hand() -> None:
    reference = shortest_paths(GRAPH, ["a"], {"d", "e"})
    assert reference == [[frozenset("ab"), frozenset("bd")]]  # the one shortest a-d path; e unreachable
    both = reward([GRAPH[0], GRAPH[1]], ["a"], {"d", "e"}, reference)
    assert both == Reward(presence=0.5, connectivity=0.8, efficiency=1 / 3, coverage=1.0)
    assert both.total == pytest.approx(2 * 0.5 + 4 * 0.8 + 1 / 3 + 3 * 1.0)
    # the detour reaches d in 3 hops and covers one hop of the shortest path
    detour = reward([GRAPH[2], GRAPH[3], GRAPH[1]], ["a"], {"d", "e"}, reference)
    assert detour == Reward(presence=0.5, connectivity=0.6, efficiency=0.25, coverage=0.5)
    # an answer alone: present, not connected
    alone = reward([GRAPH[1]], ["a"], {"d", "e"}, reference)
    assert alone == Reward(presence=0.5, connectivity=0.0, efficiency=0.0, coverage=0.5)
    assert reward([], ["a"], {"d"}, reference).total == 0.0


def test_edges_count_in_both_directions() -> None:
    # "what films did X act in": film -starred_actors-> X is walked backwards
    triples = [T("film", "starred_actors", "x")]
    assert reward(triples, ["x"], {"film"}, shortest_paths(triples, ["x"], {"film"})).connectivity == 1.0


def synthetic_examples(count: int, n: int = 40, seed: int = 0) -> list[Example]:
    """Questions whose answer triple has a relation phrase pointing one way that no other
    relation does (the way "directed by" marks "who directed" questions): a policy can
    learn to pick it; the triple texts and PageRank features are noise."""
    rng = np.random.default_rng(seed)
    marker = rng.normal(size=384).astype(np.float32)
    examples = []
    for i in range(count):
        question = rng.normal(size=384).astype(np.float32)
        relations = rng.normal(size=(n, 384)).astype(np.float32)
        answer_at = int(rng.integers(n))
        relations[answer_at] = marker + 0.2 * relations[answer_at]
        triples = [T("topic", f"r{j}", f"e{j}") for j in range(n)]
        unit = lambda m: m / np.linalg.norm(m, axis=-1, keepdims=True)
        candidates = Candidates(triples, np.zeros(n, np.float32), unit(question), unit(rng.normal(size=(n, 384))
                                                                                       .astype(np.float32)),
                                unit(relations), np.arange(n), np.zeros((n, 2), np.float32))
        examples.append(Example(f"q{i}", ["topic"], {f"e{answer_at}"}, candidates,
                                shortest_paths(triples, ["topic"], {f"e{answer_at}"})))
    return examples


def test_a_small_training_set_reaches_the_full_learning_rate_early() -> None:
    """200 questions are ~6 optimizer steps an epoch: a 100-step warm-up would last past
    the epoch where early stopping ends the run. The warm-up is capped at a fifth of the
    planned steps; with enough data it keeps its configured length."""
    small = learning_rate_schedule(warmup_steps=100, total_steps=180)
    assert small(0) == pytest.approx(1 / 36) and small(35) == pytest.approx(1.0)
    assert small(108) == pytest.approx(0.5) and small(179) < 0.01  # cosine decay over the rest
    large = learning_rate_schedule(warmup_steps=100, total_steps=900)
    assert large(49) == pytest.approx(0.5) and large(99) == pytest.approx(1.0) and large(100) == pytest.approx(1.0)


def test_training_raises_the_reward_on_a_learnable_task(tmp_path: Path) -> None:
    examples = synthetic_examples(32, n=20)
    config = TrainingConfig(k=4, epochs=6, accumulate=8, warmup_steps=5, learning_rate=1e-3, patience=10,
                            validation_share=0.25)
    torch.manual_seed(0)
    untrained = evaluate(PolicyNetwork().eval(), examples, config.k)
    epochs = []
    model, history = train(examples, config, on_epoch=epochs.append)
    assert history == epochs and len(history) >= 3
    assert max(h["validation_reward"] for h in history) > untrained + 1.0
    assert history[-1]["train_reward"] > history[0]["train_reward"]
    path = tmp_path / "scout.pt"
    save_checkpoint(path, model, config, history, {"questions": "synthetic"})
    loaded, saved = load_checkpoint(path)
    assert saved["history"] == history and saved["config"]["k"] == 4
    assert evaluate(loaded, examples, 4) == pytest.approx(evaluate(model, examples, 4))


def test_early_stopping_waits_for_the_minimum_epochs() -> None:
    examples = synthetic_examples(16)
    stopping = {"epochs": 12, "accumulate": 8, "warmup_steps": 5, "learning_rate": 0.0, "validation_share": 0.25}
    # A learning rate of 0 never improves on epoch 1: patience alone stops after epoch 2.
    assert len(train(examples, TrainingConfig(k=4, patience=1, min_epochs=1, **stopping))[1]) == 2
    assert len(train(examples, TrainingConfig(k=4, patience=1, min_epochs=6, **stopping))[1]) == 6


def test_a_file_that_is_not_a_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.pt"
    bad.write_text("not a model")
    with pytest.raises(ValueError, match="not a KG-Scout checkpoint"):
        load_checkpoint(bad)
    torch.save({"something": "else"}, bad)
    with pytest.raises(ValueError, match="not a KG-Scout checkpoint"):
        load_checkpoint(bad)


def _policy_inputs(rows: int = 50) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(3)

    def unit(*shape: int) -> torch.Tensor:
        return torch.nn.functional.normalize(torch.randn(*shape, generator=generator), dim=-1)

    return unit(384), unit(rows, 384), unit(rows, 384), torch.rand(rows, 2, generator=generator) / 100


def test_the_fast_forward_scores_and_learns_as_the_layers_as_written() -> None:
    torch.manual_seed(0)
    model, inputs = PolicyNetwork().eval(), _policy_inputs()
    fast = model(*inputs)
    assert torch.allclose(fast, model.reference_forward(*inputs), atol=1e-5)
    fast.sum().backward()
    fast_grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    model.zero_grad()
    model.reference_forward(*inputs).sum().backward()
    for name, p in model.named_parameters():
        if p.grad is not None and p.grad.abs().sum() > 0:
            assert torch.allclose(fast_grads[name], p.grad, atol=1e-4), name


def test_the_fast_forward_drops_attention_heads_per_row_in_training() -> None:
    """With one key, attention dropout zeroes whole heads of a row (p = 0.1), scaled by
    1/0.9 elsewhere: rows differ in training, and their mean is the eval-mode row."""
    torch.manual_seed(0)
    model, (question, *_) = PolicyNetwork(), _policy_inputs()
    weight = model.tower_triples[0].weight[:, 384:768].detach()
    with torch.no_grad():
        rows = model.train()._attended(model.attend_triples, question, 20_000, weight)
        expected = model.eval()._attended(model.attend_triples, question, 1, weight)[0]
    assert len({tuple(r.tolist()) for r in rows[:50]}) > 1
    assert torch.allclose(rows.mean(0), expected, atol=5 * float(expected.abs().max()) / 20_000 ** 0.5)


def test_candidates_keep_one_vector_per_relation_and_none_of_the_rest() -> None:
    """Training holds every question's candidates in memory: each distinct relation phrase's
    vector is stored once, and nothing keeps the embeddings of the triples cut by the
    pre-filter alive (the question vector once did, as a view of all of them)."""
    from agent.embeddings import Embedder
    from agent.optional_nodes.kg_scout.features import candidates_for

    embedder = Embedder()
    triples = [T("Big", "film.directed_by", "Penny Marshall"), T("Big", "film.starring", "Tom Hanks"),
               T("Big", "film.starring", "Elizabeth Perkins"), T("Splash", "film.starring", "Tom Hanks")]
    candidates = candidates_for("who starred in Big", triples, {}, ["Big"], embedder, limit=3)
    assert len(candidates) == 3 and candidates.relation_table.shape[0] == len({t.relation for t in candidates.triples})
    _, _, relations, _ = candidates.tensors()
    expected = embedder.encode([relation_phrase(t.relation) for t in candidates.triples])
    assert np.allclose(relations.numpy(), expected, atol=1e-5)
    assert candidates.question.base is None and candidates.question.shape == (384,)


def test_the_scorer_scores_candidates_and_zero_for_the_rest(tmp_path: Path) -> None:
    from agent.embeddings import Embedder
    from agent.optional_nodes.kg_scout.scorer import KGScoutScorer

    model = PolicyNetwork().eval()
    scorer = KGScoutScorer(model, Embedder(), candidates=2)
    triples = [T("Big", "directed_by", "Penny Marshall"), T("Big", "release_year", "1988"),
               T("Big", "starred_actors", "Tom Hanks")]
    scores = scorer.score("who directed Big", triples, {}, ["Big"])
    assert (scores > 0).sum() == 2 and all(0 < s < 1 for s in scores if s)
    assert math.isclose(float(scores.min()), 0.0)
