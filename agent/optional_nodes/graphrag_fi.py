"""GraphRAG-FI (Guo et al. 2025): filter the retrieved paths, then integrate the graph's
answer with the model's own by their confidences.

Coarse filter: the answering model reads the usual prompt with every path; the last
prompt token's attention at layer `num_layers // 2 + 2` over each path's tokens scores
it, (max + mean) / 2 over heads and tokens; the top `keep` (40) stay. A token budget
(`attention_tokens`, off by default) scores only the leading paths that fit and ranks the
rest after them unscored, in the retrieval order. This needs the model's weights
(`AttentionPathScorer`, the embedded Qwen loaded into transformers from its GGUF); for
an endpoint the fallback is embedding similarity (`SimilarityPathScorer`, the paper's
own "Similarity" baseline), and results say which one ran.
Fine filter: the model lists the useful paths; they are shown as "High Priority Paths",
the rest of the coarse selection as "Additional Paths", each in the retrieval order.
Integration: an answer's confidence is the mean probability of its tokens; the graph's
answers with confidence >= tau_graph (0.5) and the model-only answers with confidence
>= tau_llm (1: only answers the model is certain of) are joined, the graph's first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from agent.answer_text import normalize, read_answers
from agent.embeddings import Embedder
from agent.llm.base import LLMClient
from kg_store.errors import ConfigError
from prompts import fitting_listing, render

# RoG's answering instruction, the prompt layout the attention pass reads (paper, A.6).
ROG_INSTRUCTION = ("Based on the reasoning paths, please answer the given question. Please keep the answer as simple "
                   "as possible and return all the possible answers as a list.")
# "tau_L = 1" compares floating-point probabilities: this much below 1 still counts as 1.
CERTAIN = 1e-6


def rog_prompt(question: str, paths: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The prompt and each path's character span in it."""
    prompt = f"{ROG_INSTRUCTION}\n\nReasoning Paths:\n"
    spans = []
    for path in paths:
        spans.append((len(prompt), len(prompt) + len(path)))
        prompt += path + "\n"
    return prompt + f"\nQuestion:\n{question}", spans


class SimilarityPathScorer:
    """The fallback for models whose attention we cannot read: cosine of question and path."""

    name = "similarity"

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def scores(self, question: str, paths: Sequence[str], plain: Sequence[str] | None = None) -> list[float]:
        """`plain`: the paths in words (names, relation phrases), which an embedding reads
        better than the prompt's ids and arrows; the triple pipeline's cosine scorer ranked
        by that text, and scoring the raw text instead reordered its facts for the worse."""
        if not paths:
            return []
        vectors = self.embedder.encode([question, *(paths if plain is None else plain)])
        return [float(x) for x in vectors[1:] @ vectors[0]]


class _StopAtLayer(Exception):
    pass


class AttentionPathScorer:
    """The paper's coarse filter with the embedded model's own weights (transformers, CPU).

    Only one attention row is needed (the last token's, at one layer), so the forward pass
    stops at that layer's input and the row is computed from its query and key
    projections (rotary positions and grouped key/value heads included): the same numbers
    as the model's eager attention, without the other layers' maps."""

    name = "attention"

    def __init__(self, model_dir: Path, gguf_file: str, max_tokens: int | None = None) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(str(model_dir), gguf_file=gguf_file)
        self.model = AutoModelForCausalLM.from_pretrained(str(model_dir), gguf_file=gguf_file,
                                                          dtype=torch.float32).eval()
        self.layer = self.model.config.num_hidden_layers // 2 + 2
        self.max_tokens = max_tokens

    def scores(self, question: str, paths: Sequence[str],
               plain: Sequence[str] | None = None) -> list[float | None]:
        """`plain` is ignored: the attention is over the text the model reads. Paths past
        the token budget get None (not scored)."""
        shown = len(paths)
        if self.max_tokens is not None:
            shown = paths_that_fit(self.count_tokens, question, paths, self.max_tokens)
        if not shown:
            return [None] * len(paths)
        prompt, spans = rog_prompt(question, paths[:shown])
        encoded = self.tokenizer(prompt, return_tensors="pt", return_offsets_mapping=True)
        offsets = encoded["offset_mapping"][0].tolist()
        weights = self.last_token_attention(encoded["input_ids"])  # (heads, tokens)
        result = []
        for start, end in spans:
            tokens = [i for i, (a, b) in enumerate(offsets) if a < end and b > start]
            block = weights[:, tokens]
            result.append(float((block.max() + block.mean()) / 2) if tokens else 0.0)
        return [*result, *[None] * (len(paths) - shown)]

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text)["input_ids"])

    def last_token_attention(self, input_ids) -> np.ndarray:
        torch = self._torch
        layer = self.model.model.layers[self.layer]
        captured: dict[str, object] = {}

        def capture(module, args, kwargs):  # a torch forward pre-hook
            captured["hidden"] = args[0] if args else kwargs["hidden_states"]
            captured["rotary"] = kwargs["position_embeddings"]
            raise _StopAtLayer

        hook = layer.register_forward_pre_hook(capture, with_kwargs=True)
        try:
            with torch.no_grad():
                self.model(input_ids=input_ids)
        except _StopAtLayer:
            pass
        finally:
            hook.remove()
        from transformers.models.qwen2.modeling_qwen2 import apply_rotary_pos_emb

        config, attention = self.model.config, layer.self_attn
        head_dim = config.hidden_size // config.num_attention_heads
        with torch.no_grad():
            hidden = layer.input_layernorm(captured["hidden"])
            queries = attention.q_proj(hidden).view(1, -1, config.num_attention_heads, head_dim).transpose(1, 2)
            keys = attention.k_proj(hidden).view(1, -1, config.num_key_value_heads, head_dim).transpose(1, 2)
            cos, sin = captured["rotary"]
            queries, keys = apply_rotary_pos_emb(queries, keys, cos, sin)
            keys = keys.repeat_interleave(config.num_attention_heads // config.num_key_value_heads, dim=1)
            logits = (queries[0, :, -1:, :] @ keys[0].transpose(-1, -2)).squeeze(1) * attention.scaling
            return torch.softmax(logits, dim=-1).numpy()


def paths_that_fit(count_tokens: Callable[[str], int], question: str, paths: Sequence[str], max_tokens: int) -> int:
    """How many leading paths the attention prompt can hold within `max_tokens` (a binary
    search: a prompt's token count grows with every path added)."""
    low, high = 0, len(paths)
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens(rog_prompt(question, paths[:middle])[0]) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    return low


def coarse_scorer(wanted: str, embedder: Embedder, model_weights: Path | None,
                  attention_tokens: int | None = None) -> AttentionPathScorer | SimilarityPathScorer:
    """The coarse filter to run: attention when the answering model's weights are here
    (the embedded model), else, or when asked, embedding similarity (the paper's own
    "Similarity" baseline: a labelled fallback, not the paper's filter)."""
    if wanted == "attention" and model_weights is None:
        raise ConfigError("the attention coarse filter reads the embedded model's weights; with an endpoint use the "
                         "similarity filter (fi.coarse = similarity)")
    if wanted == "similarity" or model_weights is None:
        return SimilarityPathScorer(embedder)
    return AttentionPathScorer(model_weights.parent, model_weights.name, attention_tokens)


def filter_paths(coarse: AttentionPathScorer | SimilarityPathScorer, llm: LLMClient, question: str,
                 paths: Sequence[str], keep: int, fine: bool,
                 plain: Sequence[str] | None = None) -> tuple[list[int], list[int], list[float | None]]:
    """The coarse filter's `keep` best, the fine filter's picks among them (indices into
    `paths`), and every path's coarse score (`plain`: the paths in words, for the
    similarity filter). Kept and picked paths stay in the retrieval order, as in the paper
    (P_final within P_coarse within P: filters, not rerankers); only the fine filter's
    listing is best first, so that a listing cut to fit the prompt drops the coarse
    worst. Reordering by the coarse score or the model's pick order overrode PoG's path
    memory: the right path picked, but not first, and the 0.5B model answers from the first."""
    scores = coarse.scores(question, paths, plain)
    ranked = coarse_filter(scores, keep)
    picked = [ranked[i] for i in fine_filter(llm, question, [paths[i] for i in ranked])] if fine else []
    return sorted(ranked), sorted(picked), scores


def coarse_filter(scores: Sequence[float | None], keep: int) -> list[int]:
    """Indices of the `keep` best paths, best first (ties keep the retrieval order); paths
    not scored (past the attention's token budget) come after, in the retrieval order."""
    return sorted(range(len(scores)), key=lambda i: (scores[i] is None, -(scores[i] or 0.0), i))[:keep]


def coarse_trace(coarse: AttentionPathScorer | SimilarityPathScorer, question: str, paths: Sequence[str],
                 kept: Sequence[int], scores: Sequence[float | None]) -> dict:
    """What the coarse filter read and kept, for the trace: the filter, the candidates and
    how many it scored (the attention's token budget may leave some out), the attention
    prompt's length, and the kept paths with their scores (None: not scored)."""
    trace = {"coarse_filter": coarse.name, "candidates": len(paths), "scored": sum(s is not None for s in scores)}
    if isinstance(coarse, AttentionPathScorer):
        scored = [path for path, score in zip(paths, scores, strict=True) if score is not None]
        trace["attention_tokens"] = coarse.count_tokens(rog_prompt(question, scored)[0]) if scored else 0
    trace["coarse"] = [{"text": paths[i], "score": None if scores[i] is None else round(scores[i], 6)} for i in kept]
    return trace


class PathPicks(BaseModel):
    paths: list[int] = Field(default_factory=list)


def fine_filter(llm: LLMClient, question: str, paths: Sequence[str]) -> list[int]:
    """Indices (0-based, in the model's order) of the paths the model calls useful. The
    prompt lists the best-first paths that fit one prompt's listing (at least one)."""
    if not paths:
        return []
    shown, listing = fitting_listing(paths)
    paths = paths[:shown]
    # Room to list every path: the 0.5B model often does, and a reply cut off inside its
    # list is no JSON (a fixed 96 tokens cut 30 triples at 25, so no path was ever picked).
    reply = llm.chat([{"role": "user", "content": render("fi_fine_filter", question=question, paths=listing)}],
                     schema=PathPicks, temperature=0.0, max_tokens=16 + 4 * len(paths))
    picked: PathPicks = reply.parsed or PathPicks()
    return list(dict.fromkeys(n - 1 for n in picked.paths if 1 <= n <= len(paths)))


@dataclass(frozen=True)
class ScoredAnswer:
    answer: str
    probability: float


_ANSWER_LINE = re.compile(r"^\s*(?:[-*\d.)\s]*)ans\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


def answer_confidences(text: str, logprobs: Sequence[tuple[str, float]] | None) -> list[ScoredAnswer]:
    """Each answer of a reply with its confidence: the mean probability of the tokens
    that spell it (tokens are matched to the reply's characters; `ans:` and line breaks
    are not part of an answer). Without logprobs every answer has confidence 0."""
    answers = read_answers(text)
    if not logprobs:
        return [ScoredAnswer(a, 0.0) for a in answers]
    starts, position = [], 0
    for token, _ in logprobs:
        starts.append(position)
        position += len(token)
    spelled = "".join(token for token, _ in logprobs)
    scored = []
    for answer in answers:
        found = next((m for m in _ANSWER_LINE.finditer(spelled) if answer in m.group(1)), None)
        start = spelled.find(answer, found.start(1) if found else 0)
        if start < 0:
            scored.append(ScoredAnswer(answer, 0.0))
            continue
        end = start + len(answer)
        probabilities = [math.exp(lp) for (token, lp), s in zip(logprobs, starts, strict=True)
                         if s < end and s + len(token) > start and token.strip()]
        scored.append(ScoredAnswer(answer, sum(probabilities) / len(probabilities) if probabilities else 0.0))
    return scored


def integrate(graph: Sequence[ScoredAnswer], llm_only: Sequence[ScoredAnswer], tau_graph: float,
              tau_llm: float) -> tuple[list[str], list[dict]]:
    """The graph's answers that pass tau_graph, then the model-only answers that pass
    tau_llm, without repeats; with each candidate's probability and fate for the trace.
    When no candidate passes, the graph's answers stand (`"fallback": true` in their
    decisions): the paper is silent on that case, and a small model names even right
    answers at under 0.5, where an empty answer would lose what the graph found."""
    final: list[str] = []
    seen: set[str] = set()

    def add(answer: str) -> bool:
        """Appends an answer not yet in `final` (as normalised); whether it did."""
        key = normalize(answer)
        if key in seen:
            return False
        seen.add(key)
        final.append(answer)
        return True

    decisions = []
    for source, answers, tau in (("graph", graph, tau_graph), ("llm", llm_only, tau_llm)):
        for scored in answers:
            kept = scored.probability >= tau - CERTAIN and add(scored.answer)
            decisions.append({"source": source, "answer": scored.answer, "probability": round(scored.probability, 6),
                              "kept": kept, "threshold": tau})
    if not final:
        for decision in decisions:
            if decision["source"] == "graph" and add(decision["answer"]):
                decision.update(kept=True, fallback=True)
    return final, decisions
