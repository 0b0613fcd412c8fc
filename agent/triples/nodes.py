"""The triple pipeline's nodes: small functions from the state (and context) to an update."""

from __future__ import annotations

from langgraph.runtime import Runtime

from agent.answer_text import read_answers
from agent.events import Update, traced
from agent.linking import resolve_topics
from agent.optional_nodes.graphrag_fi import answer_confidences, coarse_trace, filter_paths, integrate
from agent.optional_nodes.kg_scout.features import linearise
from agent.optional_nodes.path_pooling import PoolingOptions, merged_lines, pool_scores, rerank
from agent.triples.context import TriplesContext
from agent.triples.state import ScoredTriple, TriplesState
from prompts import render


@traced
def link_topics(state: TriplesState, runtime: Runtime[TriplesContext]) -> Update:
    """Given topic entities the store knows; else names in [brackets] or capitalised, linked."""
    ctx = runtime.context
    given = [t for t in state.get("given_topics") or [] if t.id]
    topics, candidates = resolve_topics(ctx.store, ctx.neighbours, ctx.embedder, state["question"], given)
    return {"topics": topics, "link_candidates": candidates}


@traced
def retrieve_triples(state: TriplesState, runtime: Runtime[TriplesContext]) -> Update:
    """The question subgraph (hops around the topic entities, hub-capped), scored; the best
    `top_k` kept (the best `reselect_from` when path pooling reselects)."""
    ctx, config = runtime.context, runtime.context.config
    seeds = [t.id for t in state.get("topics") or []]
    subgraph = ctx.store.subgraph(seeds, hops=config.hops, max_degree=config.max_degree, max_edges=config.max_edges)
    scores = ctx.scorer.score(state["question"], subgraph.triples, subgraph.names, seeds)
    keep = max(config.top_k, config.pooling.reselect_from or 0) if config.pooling.enabled else config.top_k
    best = sorted(range(len(subgraph.triples)), key=lambda i: (-scores[i], i))[:keep]
    triples = [ScoredTriple.of(subgraph.triples[i], float(scores[i]), subgraph.names) for i in best]
    names = {e: subgraph.names.get(e) for t in triples for e in (t.head, t.tail)}
    stats = {"triples": len(subgraph.triples), "entities": len(subgraph.names), "scorer": ctx.scorer.name,
             "hubs_capped": sorted(subgraph.capped_entities)[:20], "truncated": subgraph.truncated}
    return {"triples": triples, "names": names, "subgraph": stats}


@traced
def pool_paths(state: TriplesState, runtime: Runtime[TriplesContext]) -> Update:
    """Path pooling: scores smoothed along the retrieved triples' paths from the topic
    entities; with reselection the best `top_k` of the larger set are kept; then ordered
    for the prompt (best last, or best at both ends)."""
    config = runtime.context.config
    options = config.pooling
    triples = state.get("triples") or []
    pooled = pool_scores([t.triple for t in triples], [t.score for t in triples],
                         [t.id for t in state.get("topics") or []],
                         PoolingOptions(search=options.search, pooling=options.pooling))
    chosen = sorted(range(len(triples)), key=lambda i: (-pooled[i], i))[: config.top_k]
    order = rerank(len(chosen), [pooled[i] for i in chosen], options.order)
    return {"triples": [triples[chosen[i]].model_copy(update={"pooled": round(pooled[chosen[i]], 6)}) for i in order]}


@traced
def filter_fi(state: TriplesState, runtime: Runtime[TriplesContext]) -> Update:
    """GraphRAG-FI's filter: the coarse scorer keeps the best `keep` triples; the model
    marks the useful ones among them (the High Priority Paths)."""
    ctx, fi = runtime.context, runtime.context.config.graphrag_fi
    triples = state.get("triples") or []
    lines = [t.text for t in triples]
    names = state.get("names") or {}
    kept, picked, scores = filter_paths(ctx.coarse_scorer, ctx.llm, state["question"], lines, fi.keep, fi.fine,
                                        plain=[linearise(t.triple, names) for t in triples])
    return {"triples": [triples[i] for i in kept],
            "fi": {**coarse_trace(ctx.coarse_scorer, state["question"], lines, kept, scores),
                   "high_priority": [lines[i] for i in picked]}}


@traced
def answer(state: TriplesState, runtime: Runtime[TriplesContext]) -> Update:
    """The model reads the triples (merged into paths when pooled; in High Priority and
    Additional blocks after GraphRAG-FI's filter) and names the answers."""
    ctx = runtime.context
    config = ctx.config
    triples = state.get("triples") or []
    names = state.get("names") or {}
    question = state["question"]

    def lines(chosen: list[ScoredTriple]) -> str:
        if config.pooling.enabled:
            return "\n".join(merged_lines([t.triple for t in chosen], names))
        return "\n".join(t.text for t in chosen)

    high = set((state.get("fi") or {}).get("high_priority") or [])
    if config.graphrag_fi.filter:
        kind = "answer_fi"
        first, rest = [t for t in triples if t.text in high], [t for t in triples if t.text not in high]
        evidence = f"High Priority Paths:\n{lines(first)}\n\nAdditional Paths:\n{lines(rest)}"
        prompt = render(kind, high=lines(first) or "(none)", additional=lines(rest) or "(none)", question=question)
    elif config.pooling.enabled:
        kind, evidence = "pog_answer", lines(triples)
        prompt = render(kind, paths=evidence, question=question)
    else:
        kind, evidence = "answer_triples", lines(triples)
        prompt = render(kind, triples=evidence or "(no facts found)", question=question)
    reply = ctx.llm.chat([{"role": "user", "content": prompt}], max_tokens=config.answer_max_tokens,
                         logprobs=config.graphrag_fi.integrate)
    answers = read_answers(reply.text, [n for n in names.values() if n])
    return {"evidence": evidence, "prompt_kind": kind, "raw_output": reply.text, "answers": answers,
            "answer_logprobs": reply.logprobs, "source": "kg" if triples else "llm"}


@traced
def integrate_answers(state: TriplesState, runtime: Runtime[TriplesContext]) -> Update:
    """GraphRAG-FI's integration: the graph's answers that the model gave with confidence
    >= tau_graph, then its own (no paths) answers with confidence >= tau_llm."""
    ctx, fi = runtime.context, runtime.context.config.graphrag_fi
    own = ctx.llm.chat([{"role": "user", "content": render("answer_io", question=state["question"])}],
                       max_tokens=ctx.config.answer_max_tokens, logprobs=True)
    graph = answer_confidences(state.get("raw_output") or "", state.get("answer_logprobs"))
    llm_only = answer_confidences(own.text, own.logprobs)
    final, decisions = integrate(graph, llm_only, fi.tau_graph, fi.tau_llm)
    kept = {d["source"] for d in decisions if d["kept"]}
    source = "kg+llm" if kept == {"graph", "llm"} else "llm" if kept == {"llm"} else "kg"
    return {"answers": final, "source": source, "fi": {**(state.get("fi") or {}), "integration": decisions}}
