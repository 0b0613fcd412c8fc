"""The three exploration phases (PoG 4.2). Each turns part of the question subgraph into
path candidates; pruning and answering follow each of them."""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agent.answer_text import names_match, normalize, read_answers
from agent.events import Update, traced
from agent.linking import link_entities
from agent.pog.candidates import extend, from_group
from agent.pog.context import PoGContext
from agent.pog.scoring import PathScorer
from agent.pog.state import PoGState
from kg_store.paths import Exploration, connect, explore, join_topics
from prompts import render


def walk(ctx: PoGContext, state: PoGState, depth: int) -> tuple[Exploration, dict[str, object]]:
    """The question subgraph to `depth` hops around the topic entities, clustered into
    path groups (one per relation sequence), hub-capped, each hop's best groups extended
    (the scorer's beam), and for several topic entities reduced to the groups that meet.
    Returns it with the figures a trace shows (what was read, what the reduction left)."""
    config = ctx.config
    scorer = PathScorer.for_state(ctx.embedder, config.weights, state, synthetic_memory=ctx.synthetic_memory)
    seeds = [t.id for t in state.get("topics") or []]
    exploration = explore(ctx.neighbours, seeds, depth=depth, max_frontier=config.max_frontier,
                          beam=lambda groups, names: scorer.beam(groups, names, config.explore_beam))
    walked = len(exploration.groups)
    shortest = config.reduction == "shortest"
    exploration.groups = join_topics(exploration.groups, seeds, ctx.neighbours, shortest=shortest, fewest_steps=shortest)
    stats = {"entities": exploration.entities, "edges": exploration.edges, "path_groups": walked,
             "path_groups_after_reduction": len(exploration.groups),
             "hubs_capped": sorted(exploration.capped_entities)[:20], "truncated": exploration.truncated}
    return exploration, stats


@traced
def explore_topic_paths(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """Phase 1: every path from the topic entities up to the current depth (paths of
    several topic entities joined where their walks meet)."""
    ctx = runtime.context
    exploration, stats = walk(ctx, state, state["depth"])
    candidates = [from_group(g, exploration.names, "topic", ctx.config.names_per_set) for g in exploration.groups]
    return {"candidates": candidates,
            "names": {**(state.get("names") or {}), **exploration.names}, "subgraph": stats}


@traced
def go_deeper(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    return {"depth": state["depth"] + 1}


@traced
def supplement_with_llm(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """Phase 2: the LLM's own likely answers, matched by name to entities within D_max
    of the topic entities; the paths that end at them become the candidates."""
    ctx, config = runtime.context, runtime.context.config
    reply = ctx.llm.chat([{"role": "user", "content": render("pog_predict", question=state["question"],
                                                             indicator=state.get("indicator") or "")}],
                         temperature=config.explore_temperature, max_tokens=64)
    predicted = [a for a in read_answers(reply.text) if normalize(a)][:3]
    exploration, stats = walk(ctx, state, config.max_depth)
    names = exploration.names
    candidates = []
    for group in exploration.groups:
        hits = {e: p for e, p in group.hops[-1].items() if any(names_match(a, names.get(e)) for a in predicted)}
        if hits:
            group.hops[-1] = hits
            candidates.append(from_group(group, names, "supplement", config.names_per_set))
    return {"phase": "supplement", "candidates": candidates, "llm_answers": predicted,
            "names": {**(state.get("names") or {}), **names}, "subgraph": stats}


class Supplement(BaseModel):
    predictions: list[str] = Field(default_factory=list)
    chains: list[str] = Field(default_factory=list)


@traced
def supplement_from_linked_guesses(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """Phase 2 as the paper does it: the model reads the paths so far, the plan and the
    split questions, and gives three likely answers with a reasoning chain each (the
    chains are the new indicator that ranks the paths from here on); the answers are
    linked to graph entities, and a bidirectional search joins the topic entities to
    them within D_max. Those paths are the candidates."""
    ctx, config = runtime.context, runtime.context.config
    topics = state.get("topics") or []
    reply = ctx.llm.chat([{"role": "user", "content": render(
        "pog_supplement", question=state["question"], topics=", ".join(t.name or t.id for t in topics),
        indicator=state.get("indicator") or "", split_questions="\n".join(state.get("split_questions") or []) or "(none)",
        paths="\n".join(c.text for c in state.get("kept") or []) or "(none)")}],
        schema=Supplement, temperature=config.explore_temperature, max_tokens=256)
    supplement: Supplement = reply.parsed or Supplement()
    predicted = [p.strip() for p in supplement.predictions if isinstance(p, str) and normalize(p)][:3]
    guessed, _ = link_entities(ctx.store, ctx.embedder, predicted, min_similarity=config.guess_link_similarity)
    topic_ids = [t.id for t in topics]
    joined = connect(ctx.neighbours, topic_ids, [g.id for g in guessed], depth=config.max_depth,
                     max_frontier=config.max_frontier)
    names = {**(state.get("names") or {}), **joined.names}
    candidates = [from_group(g, names, "supplement", config.names_per_set) for g in joined.groups]
    chains = [c.strip() for c in supplement.chains if isinstance(c, str) and c.strip()]
    return {"phase": "supplement", "candidates": candidates, "llm_answers": predicted,
            "indicator": "; ".join(chains) or state.get("indicator") or "", "names": names,
            "subgraph": {"guesses_linked": {g.name or g.id: g.id for g in guessed}, "path_groups": len(joined.groups)}}


@traced
def expand_nodes(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """Phase 3: one more hop from the end entities of the best paths: the first round from
    phase 1's and phase 2's kept paths, each later round (`expand_rounds` > 1, the paper's
    repeated expansion) from the paths the last round kept. An entity expanded once is not
    expanded again (`expanded`, the visited set)."""
    ctx = runtime.context
    names = dict(state.get("names") or {})
    rounds = state.get("expand_round") or 0
    if rounds:
        base = (state.get("kept") or [])[: ctx.config.width]
    else:  # phase 1's best, then phase 2's (when it ran and kept paths of its own)
        supplement = (state.get("kept") or []) if state.get("phase") == "supplement" else []
        base = list({c.key: c for c in [*(state.get("topic_kept") or [])[: ctx.config.width],
                                          *supplement[: ctx.config.width]]}.values())
    visited = set(state.get("expanded") or [])
    candidates = extend(ctx.neighbours, base, names, names_per_set=ctx.config.names_per_set, visited=visited)
    return {"phase": "expand", "candidates": candidates, "names": names, "expand_round": rounds + 1,
            "expanded": sorted(visited)}
