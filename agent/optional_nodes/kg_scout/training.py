"""Training KG-Scout: REINFORCE with a running baseline over questions with gold answers.

Per question: the policy scores the candidates, k of them are drawn without replacement,
the reward of that selection (reward.py) minus the baseline weighs the draws' mean
log-probability. AdamW (lr 1e-4), gradients of `accumulate` questions per step, clipped
at 1.0, a cosine learning-rate schedule after a warm-up; after each epoch the mean reward of
the deterministic top-k on held-out validation questions decides early stopping (never
before `min_epochs`), and the best epoch's weights are kept (the authors' code's settings
where the thesis is silent; `min_epochs` is ours).
"""

from __future__ import annotations

import math
import pickle
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from agent.answer_text import normalize
from agent.embeddings import MODEL_ID, Embedder
from agent.optional_nodes.kg_scout.features import Candidates, candidates_for
from agent.optional_nodes.kg_scout.model import PolicyNetwork, sample_without_replacement
from agent.optional_nodes.kg_scout.reward import Edge, reward, shortest_paths
from kg_store import GraphStore
from kg_store.errors import InputError
from loaders.questions import Gold, Question, read_questions

CHECKPOINT_VERSION = 1


@dataclass
class TrainingConfig:
    candidates: int = 1000  # cosine pre-filter
    k: int = 100  # triples selected
    epochs: int = 30
    learning_rate: float = 1e-4
    accumulate: int = 32  # questions per optimizer step
    warmup_steps: int = 100
    clip: float = 1.0
    patience: int = 5  # epochs without a better validation reward before stopping
    # The validation reward dips while the policy leaves its starting ranking (epochs 4-8
    # on MetaQA, after the warm-up); stopping in the dip keeps an early, weak epoch.
    min_epochs: int = 10
    validation_share: float = 0.1
    hops: int = 2  # question subgraph
    max_degree: int = 200
    max_edges: int = 5_000
    seed: int = 0
    device: str = "cpu"  # where the policy trains (cuda: a GPU)


@dataclass
class Example:
    question_id: str
    topics: list[str]
    answers: set[str]  # ids of the candidates' entities whose names are gold answers
    candidates: Candidates
    reference: list[list[Edge]] = field(default_factory=list)  # shortest topic-answer paths among the candidates


def training_questions(paths: Sequence[Path], fmt: str, *, sample: int | None = None, seed: int = 0,
                       held_out_sample: int | None = None, held_out_seed: int = 0
                       ) -> tuple[list[Question], dict[str, Gold]]:
    """The questions to learn from, and their gold answers: from each file a sample of
    `sample` (all when None) after leaving out the questions that
    `kgqa eval --sample HELD_OUT_SAMPLE --seed HELD_OUT_SEED` evaluates on. Those are left
    out before sampling: samples with one seed share a prefix, so removing them afterwards
    would shrink the training set instead."""
    from loaders.questions import select

    chosen: list[Question] = []
    gold: dict[str, Gold] = {}
    for path in paths:
        question_set = read_questions(path, fmt)
        held_out = {q.id for q in select(question_set, sample=held_out_sample, seed=held_out_seed)} \
            if held_out_sample else set()
        chosen += select(question_set, sample=sample, seed=seed, exclude=held_out)
        gold.update(question_set.gold)
    return chosen, gold


def prepare(store: GraphStore, questions: Sequence[Question], gold: dict[str, Gold], embedder: Embedder,
            config: TrainingConfig, on_question: Callable[[Example | None], None] | None = None) -> list[Example]:
    """Candidates and features per question; questions whose answers are not among their
    candidates (the reward would be 0 whatever is chosen), or with no more candidates than
    k (nothing to choose), teach nothing and are left out (the thesis does the same)."""
    examples = []
    for question in questions:
        topics = [t.id for t in question.topic_entities]
        subgraph = store.subgraph(topics, hops=config.hops, max_degree=config.max_degree, max_edges=config.max_edges)
        candidates = candidates_for(question.text, subgraph.triples, subgraph.names, topics, embedder,
                                    config.candidates)
        wanted = {normalize(a) for a in gold[question.id].answers}
        answers = {e for t in candidates.triples for e in (t.head, t.tail)
                   if normalize(subgraph.names.get(e) or "") in wanted}
        example = None
        if answers and len(candidates) > config.k:
            example = Example(question.id, topics, answers, candidates,
                              shortest_paths(candidates.triples, topics, answers))
            examples.append(example)
        if on_question:
            on_question(example)
    return examples


def selection_reward(example: Example, chosen: Sequence[int]) -> float:
    selected = [example.candidates.triples[i] for i in chosen]
    return reward(selected, example.topics, example.answers, example.reference).total


def train(examples: list[Example], config: TrainingConfig,
          on_epoch: Callable[[dict], None] | None = None) -> tuple[PolicyNetwork, list[dict]]:
    """The trained policy (its best epoch by validation reward) and each epoch's figures."""
    torch.manual_seed(config.seed)
    generator = torch.Generator(device=config.device).manual_seed(config.seed)
    order = list(examples)
    random.Random(config.seed).shuffle(order)
    held_out = max(1, math.ceil(config.validation_share * len(order))) if len(order) > 1 else 0
    validation, training = order[:held_out], order[held_out:] or order
    model = PolicyNetwork().to(config.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    planned_steps = max(1, len(training) * config.epochs // config.accumulate)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, learning_rate_schedule(config.warmup_steps, planned_steps))
    baseline, pending, history = 0.0, [], []
    best, best_state, stale = -math.inf, None, 0
    for epoch in range(1, config.epochs + 1):
        started = time.perf_counter()
        model.train()
        random.Random(config.seed + epoch).shuffle(training)
        rewards = []
        optimizer.zero_grad()
        for count, example in enumerate(training, 1):
            scores = model(*example.candidates.tensors(config.device))
            chosen, log_probs = sample_without_replacement(model.logits(scores), config.k, generator)
            value = selection_reward(example, chosen.tolist())
            (-(value - baseline) * log_probs.mean() / config.accumulate).backward()
            rewards.append(value)
            pending.append(value)
            if count % config.accumulate == 0 or count == len(training):
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                baseline = _update_baseline(baseline, sum(pending) / len(pending))
                pending = []
        validation_reward = evaluate(model, validation or training, config.k, config.device)
        row = {"epoch": epoch, "train_reward": round(sum(rewards) / len(rewards), 4),
               "validation_reward": round(validation_reward, 4), "baseline": round(baseline, 4),
               "temperature": round(model.temperature.detach().clamp(0.1, 5.0).item(), 4),
               "seconds": round(time.perf_counter() - started, 1)}
        history.append(row)
        if on_epoch:
            on_epoch(row)
        if validation_reward > best:
            best, best_state, stale = validation_reward, {k: v.clone() for k, v in model.state_dict().items()}, 0
        else:
            stale += 1
            if stale >= config.patience and epoch >= config.min_epochs:
                break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.to("cpu").eval()  # checkpoints and scoring are on the CPU
    return model, history


def learning_rate_schedule(warmup_steps: int, total_steps: int) -> Callable[[int], float]:
    """Linear warm-up, then cosine decay, as a factor of the learning rate. The warm-up
    takes at most a fifth of the planned steps: with a few hundred questions, 100 steps
    are more than ten epochs, and early stopping used to end such runs before the
    learning rate had ever reached its peak."""
    warmup = max(1, min(warmup_steps, total_steps // 5))

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total_steps - warmup))))

    return factor


def _update_baseline(baseline: float, average: float) -> float:
    """The authors' running baseline: start at 0.8 x the first average, follow large
    moves by a tenth, never above 0.9 x the latest average."""
    if baseline == 0:
        baseline = 0.8 * average
    elif abs(average - baseline) > 0.5:
        baseline += 0.1 * (average - baseline)
    return min(baseline, 0.9 * average)


def top_k(model: PolicyNetwork, example: Example, k: int, device: str = "cpu") -> list[int]:
    with torch.no_grad():
        scores = model(*example.candidates.tensors(device))
    return torch.topk(scores, min(k, len(scores))).indices.tolist()


def evaluate(model: PolicyNetwork, examples: Sequence[Example], k: int, device: str = "cpu") -> float:
    """Mean reward of the deterministic top-k (eval mode), the early-stopping signal."""
    if not examples:
        return 0.0
    model.eval()
    return sum(selection_reward(e, top_k(model, e, k, device)) for e in examples) / len(examples)


def save_checkpoint(path: Path, model: PolicyNetwork, config: TrainingConfig, history: list[dict],
                    trained_on: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"version": CHECKPOINT_VERSION, "state_dict": model.state_dict(), "config": asdict(config),
                "history": history, "embedding_model": MODEL_ID, "trained_on": trained_on}, path)


def load_checkpoint(path: Path) -> tuple[PolicyNetwork, dict]:
    """The policy in eval mode and the checkpoint's record; a clear error for anything else."""
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except (OSError, RuntimeError, ValueError, EOFError, pickle.UnpicklingError) as exc:
        raise InputError(f"{path} is not a KG-Scout checkpoint ({type(exc).__name__}: {exc})") from exc
    if not isinstance(saved, dict) or saved.get("version") != CHECKPOINT_VERSION or "state_dict" not in saved:
        raise InputError(f"{path} is not a KG-Scout checkpoint (kgqa train kg-scout writes them)")
    if saved.get("embedding_model") != MODEL_ID:
        raise InputError(f"{path} was trained on {saved.get('embedding_model')} embeddings, not {MODEL_ID}")
    model = PolicyNetwork()
    model.load_state_dict(saved["state_dict"])
    model.eval()
    return model, saved
