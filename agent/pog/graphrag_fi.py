"""GraphRAG-FI inside PoG (optional): filter each phase's ranked paths before the
answer, and integrate the graph's answer with the model's own by token confidence.

filter_paths_fi (after prune_paths): the coarse scorer (attention of the embedded
model, or embedding similarity for endpoints) keeps `fi.keep` of the fuzzy-ranked
candidates, the model picks the useful ones; its picks are kept first (the answer
prompt shows them as High Priority Paths), the other survivors fill up to the width,
both in PoG's own ranking (the filter chooses, the path memory orders).

integrate_answers_fi (after finalise): the PoG answers with the confidence the model
gave their names in the answer reply (the rest of a path's ends share the best named
one's; answers no model named, from the graph's structure alone, count as certain),
then the model's own answers (no paths) with theirs; each kept when it passes its
threshold (tau_graph, tau_llm)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from agent.answer_text import names_match
from agent.events import Update, traced
from agent.optional_nodes.graphrag_fi import ScoredAnswer, answer_confidences, coarse_trace, filter_paths, integrate
from agent.pog.context import PoGContext
from agent.pog.state import PoGState
from prompts import render

STRUCTURAL = 1.0  # the confidence of an answer the graph gave without the model naming it


@traced
def filter_paths_fi(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    ctx, config = runtime.context, runtime.context.config
    candidates = state.get("candidates") or []
    if not candidates:
        return {}
    texts = [c.text for c in candidates]
    kept, picked, scores = filter_paths(ctx.coarse_scorer, ctx.llm, state["question"], texts, config.graphrag_fi.keep,
                                        config.graphrag_fi.fine)
    order = list(dict.fromkeys([*picked[: config.width], *kept]))[: config.width]
    chosen = [candidates[i] for i in order]
    update: Update = {"kept": chosen, "fi": {
        **(state.get("fi") or {}), **coarse_trace(ctx.coarse_scorer, state["question"], texts, kept, scores),
        "high_priority": [texts[i] for i in picked[: config.width]]}}
    if state.get("phase") == "topic":
        update["topic_kept"] = chosen
    return update


@traced
def integrate_answers_fi(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    ctx, fi = runtime.context, runtime.context.config.graphrag_fi
    answers = state.get("answers") or []
    if state.get("source") == "llm" or not answers:  # no graph answer to weigh
        return {"fi": {**(state.get("fi") or {}), "integration": []}}
    named = answer_confidences(state.get("answer_reply") or "", state.get("answer_logprobs"))
    graph = [ScoredAnswer(a, _confidence(a, answers, named)) for a in answers]
    own = ctx.llm.chat([{"role": "user", "content": render("answer_io", question=state["question"])}],
                       temperature=0.0, max_tokens=ctx.config.answer_max_tokens, logprobs=True)
    final, decisions = integrate(graph, answer_confidences(own.text, own.logprobs), fi.tau_graph, fi.tau_llm)
    kept = {d["source"] for d in decisions if d["kept"]}
    update: Update = {"answers": final, "fi": {**(state.get("fi") or {}), "integration": decisions}}
    if kept == {"llm"}:
        update.update(source="llm", answer_entities=[], answer_path=None)
    elif "llm" in kept:
        update["source"] = "kg+llm"
    kept_graph = {d["answer"] for d in decisions if d["kept"] and d["source"] == "graph"}
    if kept != {"llm"}:
        names = state.get("names") or {}
        update["answer_entities"] = [e for e in state.get("answer_entities") or [] if (names.get(e) or e) in kept_graph]
    return update


def _confidence(answer: str, answers: list[str], named: list[ScoredAnswer]) -> float:
    """How sure the model was of `answer`: its name's probability in the answer reply;
    for an answer it did not name, the best of those it named among the PoG answers (they
    end the same path); for answers it named none of, the graph's own structure: certain."""
    own = [s.probability for s in named if names_match(s.answer, answer)]
    if own:
        return max(own)
    shared = [s.probability for s in named if any(names_match(s.answer, a) for a in answers)]
    return max(shared) if shared else STRUCTURAL
