"""Question analysis (PoG 4.1): topic entities, split questions, the thinking indicator
and the predicted depth, in one LLM call; the path memory's prior when there is one."""

from __future__ import annotations

import math

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agent.answer_text import normalize
from agent.embeddings import Embedder
from agent.events import Update, traced
from agent.linking import Entity, relation_vocabulary, resolve_topics
from agent.pog.config import PoGConfig
from agent.pog.context import PoGContext
from agent.pog.memory import PathMemory, mask_question
from agent.pog.scoring import ChainKey, PathScorer
from agent.pog.state import PoGState, PriorChain
from kg_store import GraphStore
from kg_store.paths import NeighborCache
from prompts import render


class Analysis(BaseModel):
    topic_entities: list[str] = Field(default_factory=list)
    split_questions: list[str] = Field(default_factory=list)
    indicator: str = ""
    depth: int | None = None


@traced
def analyse_question(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    ctx, config = runtime.context, runtime.context.config
    question = state["question"]
    given = [t for t in state.get("given_topics") or [] if t.id]
    asked: list[Analysis] = []  # the model's analysis, asked at most once, and only when read

    def analysis_by_model() -> Analysis:
        if not asked:
            known = "Topic entities: " + ", ".join(t.name or t.id for t in given) if given else ""
            reply = ctx.llm.chat([{"role": "user", "content": render("pog_analyse", question=question,
                                                                     known_topics=known)}],
                                 schema=Analysis, temperature=config.explore_temperature, max_tokens=200)
            asked.append(reply.parsed or Analysis())
        return asked[0]

    if analysis_is_read(config, has_memory=ctx.memory is not None):
        analysis_by_model()
    topics, candidates = resolve_topics(ctx.store, ctx.neighbours, ctx.embedder, question, given,
                                        lambda: analysis_by_model().topic_entities)
    analysis = asked[0] if asked else Analysis()
    indicator = analysis.indicator.strip() or question
    # PoG orders the topic entities by where the indicator mentions them.
    topics.sort(key=lambda t: _position(indicator, t.name or t.id))

    masked = masked_topics(question, topics, ctx.store, ctx.neighbours)
    prior, asked_kind = [], []
    if ctx.memory is not None and topics:
        prior = memory_prior(ctx.memory, ctx.neighbours, ctx.embedder, config, masked, [t.id for t in topics],
                             question_id=state.get("question_id"), question_group=state.get("question_group"))
        asked_kind = ctx.memory.last_steps_of_asked_kind(masked)
    depth, depth_source = predict_depth(config, analysis, indicator, prior, memory_confidence(ctx))
    held = {t.id for t in topics}
    # Said, not silently dropped: with a constraint's entity missing (CWQ's second topics
    # on the FB15k-237 subset), the answer cannot honour the constraint.
    unheld = [t for t in given if t.id not in held and (t.name or t.id) not in candidates]
    return {"topics": topics, "unheld_topics": unheld, "link_candidates": candidates, "masked_question": masked,
            "indicator": indicator, "split_questions": [s for s in analysis.split_questions if isinstance(s, str)][:5],
            "path_prior": prior[:5], "asked_kind_steps": asked_kind, "predicted_depth": depth,
            "depth_source": depth_source, "depth": depth,
            "model_depth": analysis.depth if isinstance(analysis.depth, int) else None, "phase": "topic"}


def masked_topics(question: str, topics: list[Entity], store: GraphStore, neighbours: NeighborCache) -> str:
    """The question with its topic entities masked as X, by the names given and the
    graph's (WebQSP calls Muhammad "Muhammad in Islam", the graph "Muhammad")."""
    graph_names = neighbours.names([t.id for t in topics])
    return mask_question(question, [t.name or t.id for t in topics] + list(graph_names.values()),
                         relation_vocabulary(store))


def memory_prior(memory: PathMemory, neighbours: NeighborCache, embedder: Embedder, config: PoGConfig, masked: str,
                 topic_ids: list[str], *, question_id: str | None = None,
                 question_group: str | None = None) -> list[PriorChain]:
    """The path memory's prior for a question (`masked`, its topics `topic_ids`): only the
    sequences the topics can start (and, for a synthesised memory, have), the question's
    own group left out, and a synthesised memory told which relation the question names
    beside its topic."""
    edges, _ = neighbours.neighbors(topic_ids)
    first_steps = {(e.relation, e.direction == "out") for es in edges.values() for e in es}
    reachable: set[ChainKey] | None = None
    first_relation: str | None = None
    if memory.synthetic:
        reachable = memory.reachable(neighbours, topic_ids, depth=config.max_depth, max_frontier=config.max_frontier)
        first_relation = PathScorer(embedder, config.weights, masked, None, [], None).first_relation(
            r for chain in reachable for r, _ in chain)
    return memory.prior(embedder.encode([masked])[0], exclude_id=question_id, exclude_group=question_group,
                        k=config.memory_k, first_steps=first_steps, question=masked, reachable=reachable,
                        first_relation=first_relation)


def analysis_is_read(config: PoGConfig, *, has_memory: bool) -> bool:
    """Whether anything reads the model's analysis beyond the topic names: the indicator
    ranks paths beside the question when no path memory does (it names the relations the
    question leaves implicit), phase 1 starts at the model's depth,
    or the paper's prompts show the plan (summary, linked phase 2). With a path memory
    and none of these, the analysis is asked only for the topic entities' names, when none
    is given and the linker finds none in the question, and the question stands in for the
    indicator: one call a question fewer (docs/benchmarks.md, "PoG against one retrieval
    call")."""
    return (config.analysis == "always" or not has_memory or config.start_depth == "model"
            or config.plan_in_prompts or config.summary == "llm" or config.supplement_search == "linked")


def memory_confidence(ctx: PoGContext) -> float:
    """The vote share from which the path memory's depth is where phase 1 starts: a
    labelled memory's `memory_confidence`. A synthesised memory's best guess, even unsure,
    beats the small model's (`start_depth=model`; MetaQA dev: the model says 1 hop for 26 of
    200 one-hop questions), but sets no depth otherwise: it was deeper than the question for
    7 of 200 one-hop dev questions ("what was X the director of" read as "the director of
    the films X wrote"). Every depth is explored, and its vote is one term of the path
    score (`weights.synthetic_memory`)."""
    if not ctx.synthetic_memory:
        return ctx.config.memory_confidence
    return 0.0 if ctx.config.start_depth == "model" else math.inf


def predict_depth(config: PoGConfig, analysis: Analysis, indicator: str, prior: list,
                  confidence: float) -> tuple[int, str]:
    """Where phase 1 starts: the memory's depth when it is confident; else, with
    `start_depth="structure"`, D_max (every depth is explored and the paths' scores, with
    their length penalty, decide); else (PoG's own, `"model"`) the LLM's number, the
    indicator's relation count (`a -> r -> b` has one), or 1."""
    max_depth = config.max_depth
    if prior and prior[0].weight >= confidence and 1 <= prior[0].depth <= max_depth:
        return prior[0].depth, "memory"
    if config.start_depth == "structure":
        return max_depth, "structure"
    if analysis.depth is not None and 1 <= analysis.depth <= max_depth:
        return analysis.depth, "llm"
    arrows = indicator.count("->")
    if arrows:
        return min(max(arrows // 2, 1), max_depth), "indicator"
    return 1, "default"


def _position(text: str, name: str) -> int:
    found = normalize(text).find(normalize(name))
    return found if found >= 0 else len(text)


def plan_text(state: PoGState) -> str:
    """The question analysis as the paper's selection prompts show it: the indicator and
    the split questions (a line each; empty when the analysis gave none)."""
    lines = [f"Plan: {state['indicator']}"] if state.get("indicator") else []
    split = state.get("split_questions") or []
    if split:
        lines += ["Sub-questions:", *(f"- {q}" for q in split)]
    return "".join(f"{line}\n" for line in lines)
