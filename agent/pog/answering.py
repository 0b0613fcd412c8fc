"""Answering (PoG 4.4): the kept paths as evidence (or the LLM's summary of them), the
answer and its sufficiency check, and the last resort when no path sufficed."""

from __future__ import annotations

from collections.abc import Callable

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agent.answer_text import named_in, names_match, names_only_the_question, normalize, read_answers
from agent.events import Update, traced
from agent.llm.base import LLMReply
from agent.pog.analysis import plan_text
from agent.pog.candidates import chains_through_topic_phrase, names_one_topic, path_text
from agent.pog.constraints import superlative
from agent.pog.context import PoGContext
from agent.pog.memory import MASK, mask_question, masked_question
from agent.pog.scoring import contradicted, explained, fits_better, outcomposed
from agent.pog.state import AnswerReason, PathCandidate, PoGState, Source
from prompts import render


class JudgedAnswer(BaseModel):
    sufficient: bool = False
    answers: list[str] = Field(default_factory=list)


@traced
def summarise_paths(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """The evidence the answer prompt reads: the kept paths, numbered (or, with path
    pooling, their best facts as merged paths); with `summary="llm"`, PoG's summary of
    them by the LLM as well."""
    ctx = runtime.context
    listing = (state.get("pooled_evidence") if ctx.config.pooling.enabled else None) or _numbered(
        state.get("kept") or [], (state.get("fi") or {}).get("high_priority") if ctx.config.graphrag_fi.filter else None)
    if ctx.config.summary != "llm" or not listing:
        return {"evidence": listing}
    reply = ctx.llm.chat([{"role": "user", "content": render(
        "pog_summarise", question=state["question"], indicator=state.get("indicator") or "",
        split_questions="\n".join(state.get("split_questions") or []) or "(none)", paths=listing)}],
        temperature=0.0, max_tokens=256)
    return {"evidence": f"{listing}\n\nSummary of these paths:\n{reply.text.strip()}"}


def _numbered(kept: list[PathCandidate], high_priority: list[str] | None) -> str:
    """The kept paths, numbered; after GraphRAG-FI's filter, the model's picks first as
    High Priority Paths (the paper's prompt), the others as Additional Paths."""
    if high_priority is None:
        return "\n".join(f"Path {i + 1}: {c.text}" for i, c in enumerate(kept))
    first = [c for c in kept if c.text in high_priority]
    rest = [c for c in kept if c.text not in high_priority]
    listed = [f"Path {i + 1}: {c.text}" for i, c in enumerate(first + rest)]
    return (f"High Priority Paths:\n{chr(10).join(listed[: len(first)]) or '(none)'}\n\n"
            f"Additional Paths:\n{chr(10).join(listed[len(first):]) or '(none)'}")


@traced
def answer_from_paths(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """The LLM reads the evidence and names the answer; the first of these rules that
    holds makes the paths sufficient, and names the answer's reason (`state.AnswerReason`):

    1. `named_path_end`: a name it gives ends a kept path whose score is within
       `answer_margin` of the best path so far (phase 1's best included), or, with a
       synthesised memory, a kept path as deep as the best that is within the margin by
       every term but the memory's vote, or any kept path that ends at a number or a date
       where the question asks for one and the best path does not: that entity first,
       then the rest of the path's ends. Where the question's words explain the best path
       whole (`scoring.explained`), a path they count against is not eligible, nor a
       shorter one that leaves a word naming a relation unexplained (`scoring.outcomposed`: the question composes more
       than it walks). For a chain from one topic ("the currency of X 's country",
       `candidates.names_one_topic`), a path that is the start of a longer kept path ranked
       above it by more than the margin is not eligible: its ends are the middle of that
       chain, not the answer (a longer path the question explains whole; any, where it
       chains through its topic's phrase);
    1b. `named_chain_middle` (a chain from one topic): its first name is the middle of such a
        chain within the margin, or of one the question explains whole while the path to
        the middle leaves a word naming a relation unexplained (`leaves_the_chain_unexplained`):
        the chain's ends, unless the path to the middle fits the
        words saying what is asked clearly better than the chain's end (`scoring.fits_better`:
        "which *countries* speak the Germanic languages ..." names countries, and the chain
        runs on to the people born there); then, unless the question chains through its
        topic's phrase, rule 5;
    2. `judged_value` (`sufficiency="llm"`): it judged the paths sufficient and gave a
       value no rule above placed: a kept path that holds it (a date, a number its text
       shows) answers; when none does, the answer is the model's own (`model_knowledge`,
       source `llm`);
    3. `memory_trusts_best`: the path memory trusts the best path: its ends (a small model
       often names the film's director when asked for the film);
    4. `best_over_named_lower`: it named an end of a kept path the ranking put further
       below the best: the best path answers. The 0.5B model likes the paths with the most
       names; on MetaQA dev without a memory the best path was right far more often than
       its pick of another;
    5. `named_inside_path`: its first name is an entity inside an eligible path: the path
       up to there (PoG's answers need not end a path);
    6. `named_only_question` (phase 1): it named nothing but what the question names
       ("ans: Elia Suleiman" for "what did Elia Suleiman direct", the 0.5B model's
       commonest slip): its reply says nothing either way, and the best path's ends
       answer. Going deeper on such a reply answered from longer, wrong paths.
    With `sufficiency="llm"`, its own {Yes}/{No} must say yes before any of them. The
    question's own topic entities are never answers ("who co-wrote films with X" walks
    back to X). Whatever the rule, an answer marked as the graph's is held by the path
    marked as its evidence (`held_by_its_path`)."""
    ctx, config = runtime.context, runtime.context.config
    kept = state.get("kept") or []
    if not kept:
        return {"sufficient": False}
    names = state.get("names") or {}
    said, judged_sufficient, reply = _ask_for_answer(ctx, state, kept, names)
    heard = {"llm_answers": said, "answer_reply": reply.text, "answer_logprobs": reply.logprobs}
    if judged_sufficient is False:
        return {"sufficient": False, **heard}
    stated = _named_by_question(state)
    names = answer_names(state, stated)
    source: Source = "kg+llm" if state.get("phase") == "supplement" else "kg"
    # Within the margin of the best path found so far: a later phase's paths (expansions of
    # phase 1's weaker paths) do not outvote a phase-1 path that scored far above them.
    best = max([kept[0], *(state.get("topic_kept") or [])[:1]], key=lambda c: c.score)
    eligible = [c for c in kept if c.score >= best.score - config.answer_margin]
    if ctx.synthetic_memory:
        eligible += _close_but_for_the_vote(kept, best, config.weights.synthetic_memory, config.answer_margin, eligible)
    # A best path that ends at no number or date where the question asks for one (`value`)
    # keeps no margin over the kept paths that do: "the currency used in X has how many
    # decimal places" is the currency's minor units, which the model names.
    if best.score_parts.get("value"):
        eligible += [c for c in kept if not c.score_parts.get("value") and c not in eligible]
    # Within the margin the model's pick decides, but not for a path the question's own
    # words count against when they explain the best path whole ("which elements were
    # discovered by the person who discovered X": the path that never walks back ends at
    # the person).
    if explained(best.score_parts):
        eligible = [c for c in eligible if not contradicted(c.score_parts)]
    # Nor for a path that leaves a relation word out beside a deeper one within the margin
    # that they explain whole, best or not: "units derived from the kilogram measure what"
    # ranked the one step to the units derived from it just above the walk on to their
    # quantity kind, and the model named the units, the chain's middle.
    deepest = max((c.depth for c in eligible if explained(c.score_parts)), default=0)
    eligible = [c for c in eligible if not outcomposed(c.score_parts, c.depth, deepest)]
    # A chain from one topic has a middle that is no answer. A superlative's path runs on
    # to the value that orders its answers ("took a position first"), a constraint's to
    # what the question states ("which school, founded in *1919*, ..."): there the middle
    # answers. The chain must be one the question's words explain whole, unless the
    # question says itself that it chains through its topic's phrase ("X 's country"):
    # the synonym test misses words ("what *money* ... X 's country" and `currency`).
    question = masked_question(state)
    chains = (names_one_topic(question, MASK) and superlative(question) is None
              and all(stated.isdisjoint(c.ends) for c in eligible))
    nested = chains and chains_through_topic_phrase(question, MASK)

    def overrides(chain: PathCandidate) -> bool:
        return chains and (nested or explained(chain.score_parts))

    within_margin = eligible
    if chains:
        eligible = [c for c in eligible if _longer_chain(c, kept, config.answer_margin, overrides) is None]
    found = (
        _named_path_end(said, eligible, names, source)
        or (_named_middle_of_chain(said, within_margin, kept, names, source, config.answer_margin, overrides)
            if chains else None)
        or (None if nested else
            _named_inside_path(said[:1], eligible, names, state.get("names") or {}, config.names_per_set, source))
        or (_judged_value(said, kept, names, source) if judged_sufficient and said else None)
        or _trusted_best_path(kept[0], names, config.memory_confidence, source, "memory_trusts_best")
        or (_trusted_best_path(best, names, 0.0, source if best is kept[0] else "kg", "best_over_named_lower")
            if _named_path_end(said, kept, names, source) is not None else None)
        or _named_inside_path(said[:1], eligible, names, state.get("names") or {}, config.names_per_set, source)
        or (_trusted_best_path(kept[0], names, 0.0, source, "named_only_question")
            if state.get("phase") == "topic" and (not said or names_only_the_question(said, state["question"]))
            else None))
    return {"sufficient": found is not None, **heard, **(held_by_its_path(found, names) if found else {})}


def _longer_chain(path: PathCandidate, kept: list[PathCandidate], margin: float,
                  overrides: Callable[[PathCandidate], bool]) -> PathCandidate | None:
    """The best kept path that walks `path`'s steps from the same topic and goes on, that
    the ranking put above it by more than `margin`, and that `overrides` its middle:
    `path`'s ends are then the middle of that chain (the country in "the currency of X 's
    country"), not an answer. Within the margin the model's pick decides, as between any
    two close paths."""
    longer = [c for c in kept if c.seed == path.seed and len(c.steps) > len(path.steps) and c.joins == path.joins
              and c.steps[:len(path.steps)] == path.steps and c.score > path.score + margin and overrides(c)]
    return max(longer, key=lambda c: c.score, default=None)


def _named_middle_of_chain(said: list[str], chains: list[PathCandidate], kept: list[PathCandidate],
                           names: dict[str, str | None], source: Source, margin: float,
                           overrides: Callable[[PathCandidate], bool]) -> Update | None:
    """The model named an entity in the middle of a chain within the answer margin that
    `overrides` its middle, and that the ranking put above the shorter path ending there
    by more than `margin` (or pruned that path, or the question's words count against it
    or leave a relation it names unexplained, `leaves_the_chain_unexplained`): the chain
    answers, with its own ends."""
    for answer in said[:1]:
        # a join is part of its chain: no prefix stands alone
        for candidate in (c for c in chains if not c.joins and overrides(c)):
            for hop in range(len(candidate.hops) - 1):
                if not any(names_match(answer, names.get(e)) for e in candidate.hops[hop]):
                    continue
                prefix = next((c for c in kept if c.key == (candidate.seed, tuple(candidate.steps[:hop + 1]))), None)
                if prefix is not None and fits_better(prefix.score_parts, candidate.score_parts):
                    continue  # the question asks for what the middle is: the chain ran past it
                # not kept: ranked below too; contradicted: the question's words are against it
                if (prefix is None or candidate.score > prefix.score + margin or contradicted(prefix.score_parts)
                        or leaves_the_chain_unexplained(prefix, candidate)):
                    named = [e for e in candidate.ends if names.get(e)]
                    return _answer(candidate, named[:1], names, source, "named_chain_middle") if named else None
    return None


def leaves_the_chain_unexplained(prefix: PathCandidate, chain: PathCandidate) -> bool:
    """Whether the path to a chain's middle leaves a word naming a relation unexplained
    where the question's words explain the chain whole (`scoring.outcomposed`): such a
    path is no answer beside the chain (the eligibility rule of `answer_from_paths`), and
    neither is its end when the model names it inside the chain ("units derived from X
    measure what": the units derived from X, by "measure", are the middle)."""
    return explained(chain.score_parts) and outcomposed(prefix.score_parts, prefix.depth, chain.depth)


def _close_but_for_the_vote(kept: list[PathCandidate], best: PathCandidate, vote_weight: float, margin: float,
                            eligible: list[PathCandidate]) -> list[PathCandidate]:
    """Kept paths as deep as `best` that score within `margin` of the best of that depth
    when the synthesised memory's vote is left out. That vote tells close relations of one
    depth apart by how alike written questions are, which sentence embeddings do poorly
    ("where did X die" is nearer than "the cause of death of X" to "what did X die of"),
    where the model knows the fact; across depths it stays the judge: the model's pick of
    a shorter path names the middle entity (WebQSP and MetaQA dev traces)."""
    def without_vote(candidate: PathCandidate) -> float:
        return candidate.score - vote_weight * candidate.score_parts.get("memory", 0.0)

    same_depth = [c for c in kept if c.depth == best.depth]
    if not same_depth:  # the best is an earlier phase's
        return []
    top = max(without_vote(c) for c in same_depth)
    return [c for c in same_depth if c not in eligible and without_vote(c) >= top - margin]


def _ask_for_answer(ctx: PoGContext, state: PoGState, kept: list[PathCandidate],
                    names: dict[str, str | None]) -> tuple[list[str], bool | None, LLMReply]:
    """The names the LLM gives, its own sufficiency judgement (None when not asked), and
    the reply (with token logprobs when GraphRAG-FI integrates the answer)."""
    config = ctx.config
    if config.sufficiency == "llm":
        plan = plan_text(state) if config.plan_in_prompts else ""
        reply = ctx.llm.chat([{"role": "user", "content": render(
            "pog_answer_judged", paths=state.get("evidence") or "", question=state["question"], plan=plan)}],
            schema=JudgedAnswer, temperature=0.0, max_tokens=config.answer_max_tokens)
        judged: JudgedAnswer = reply.parsed or JudgedAnswer()
        return [a.strip() for a in judged.answers if isinstance(a, str) and a.strip()], judged.sufficient, reply
    reply = ctx.llm.chat([{"role": "user", "content": render(
        "pog_answer", paths=state.get("evidence") or "", question=state["question"])}],
        temperature=0.0, max_tokens=config.answer_max_tokens, logprobs=config.graphrag_fi.integrate)
    return read_answers(reply.text, [names.get(e) or "" for c in kept for e in c.ends]), None, reply


def _named_path_end(said: list[str], eligible: list[PathCandidate], names: dict[str, str | None],
                    source: Source, reason: AnswerReason = "named_path_end") -> Update | None:
    for answer in said:
        for candidate in eligible:
            matched = [e for e in candidate.ends if names_match(answer, names.get(e))]
            if matched:
                return _answer(candidate, matched, names, source, reason)
    return None


def _trusted_best_path(best: PathCandidate, names: dict[str, str | None], confidence: float,
                       source: Source, reason: AnswerReason) -> Update | None:
    named = [e for e in best.ends if names.get(e)]
    if named and best.score_parts.get("memory", 0.0) >= confidence:
        return _answer(best, named[:1], names, source, reason)
    return None


def _named_inside_path(said: list[str], eligible: list[PathCandidate], names: dict[str, str | None],
                       display_names: dict[str, str | None], names_per_set: int, source: Source) -> Update | None:
    for answer in said:
        for candidate in eligible:
            for hop in range(len(candidate.hops) - 1):
                matched = [e for e in candidate.hops[hop] if names_match(answer, names.get(e))]
                if matched:
                    return _answer(truncate(candidate, hop + 1, display_names, names_per_set), matched, names, source,
                                   "named_inside_path")
    return None


def truncate(path: PathCandidate, steps: int, names: dict[str, str | None], names_per_set: int) -> PathCandidate:
    """The first `steps` steps of a path, as a path of its own."""
    hops = path.hops[:steps]
    return path.model_copy(update={
        "steps": path.steps[:steps], "hops": hops, "joins": {}, "evidence": [seq[: steps + 1] for seq in path.evidence],
        "text": path_text(path.seed, path.steps[:steps], hops, names, names_per_set), "depth": steps})


def _named_by_question(state: PoGState) -> set[str]:
    """The entities the question itself names, besides its topics: a name whose words the
    question has outside its topics' names ("1919" in "which school, founded in 1919, ..."),
    or a topic's own name (the tag `hal ashby` of Hal Ashby's films). "Bangla" is not
    named by "name a language of Bangladesh that uses the Bangla script": it is part of
    the topic's name, and the answer."""
    topics = state.get("topics") or []
    topic_names = {normalize(t.name) for t in topics if t.name}
    outside_topics = mask_question(state["question"], [t.name or t.id for t in topics])
    ids = {t.id for t in topics}
    return {e for e, name in (state.get("names") or {}).items() if e not in ids and name
            and (named_in(outside_topics, name) or normalize(name) in topic_names)}


def answer_names(state: PoGState, stated: set[str] | None = None) -> dict[str, str | None]:
    """Entity names as answers see them: the topic entities, and every entity the question
    itself names (`_named_by_question`), unnamed, so that no rule picks them. A path
    through films and back to their writers ends at the topic writer too; the tag `hal
    ashby` of his films is no answer to "what movies did Hal Ashby direct", nor the title
    "President" to "who was the US President". `stated`: `_named_by_question(state)`, where
    the caller has it already."""
    if stated is None:
        stated = _named_by_question(state)
    unnamed = stated | {t.id for t in state.get("topics") or []}
    return {e: None if e in unnamed else name for e, name in (state.get("names") or {}).items()} | {
        e: None for e in unnamed}


def _answer(path: PathCandidate, first: list[str], names: dict[str, str | None], source: Source,
            reason: AnswerReason) -> Update:
    ends = first + [e for e in path.ends if e not in first and names.get(e)]
    return {"source": source, "answer_entities": ends, "answers": [names.get(e) or e for e in ends],
            "answer_path": path, "answer_reason": reason}


def _model_knowledge(said: list[str]) -> Update:
    """The model's own answer: no kept path holds it, so no path is shown as its evidence."""
    return {"source": "llm", "answers": said, "answer_entities": [], "answer_path": None,
            "answer_reason": "model_knowledge"}


def _judged_value(said: list[str], kept: list[PathCandidate], names: dict[str, str | None],
                  source: Source) -> Update:
    """The model judged the paths sufficient and named what no rule above placed: a kept
    path that holds it (an entity of any hop, or a value its text shows: a date, a
    number) answers, the names it holds first; when none does, the answer is the model's
    own (a scripted model that names "Penny Marshall" for "what year was Splash released"
    gets no path claimed for it)."""
    for path in kept:
        held = [a for a in said if _holds(path, a, names)]
        if held:
            entities = [e for a in held for hop in path.hops for e in hop if names_match(a, names.get(e))]
            return {"source": source, "answers": held, "answer_entities": list(dict.fromkeys(entities)),
                    "answer_path": path, "answer_reason": "judged_value"}
    return _model_knowledge(said)


def _holds(path: PathCandidate, answer: str, names: dict[str, str | None]) -> bool:
    """Whether `path` holds `answer`: an entity of one of its hops by that name, or its
    text shows the value as whole words."""
    if any(names_match(answer, names.get(e)) for hop in path.hops for e in hop):
        return True
    wanted = normalize(answer)
    return bool(wanted) and f" {wanted} " in f" {normalize(path.text)} "


def held_by_its_path(update: Update, names: dict[str, str | None]) -> Update:
    """The answer as `source` may claim it: an answer said to come from the graph (`kg`,
    `kg+llm`) is held by the path marked as its evidence, or it is the model's own. Every
    rule above builds its answer from its path, so this changes nothing unless a rule is
    wrong; it is the check that keeps "from the knowledge graph" true."""
    if update.get("source") == "llm":
        return update
    path, answers = update.get("answer_path"), update.get("answers") or []
    if path is not None and answers and all(_holds(path, a, names) for a in answers):
        return update
    return _model_knowledge(answers)


@traced
def answer_with_knowledge(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """The paper's last step when no path sufficed (`final_answer="llm"`): the model
    answers from the kept paths and its own knowledge. A name it gives that ends a kept
    path answers with that path, marked kg+llm (its guess, which a path confirms); names
    no path holds are its own knowledge, marked llm. When it names nothing, `finalise`
    answers from the best path."""
    ctx = runtime.context
    paths = list({c.key: c for c in [*(state.get("kept") or []), *(state.get("topic_kept") or [])]}.values())
    reply = ctx.llm.chat([{"role": "user", "content": render(
        "pog_answer_knowledge", paths=_numbered(paths, None), question=state["question"])}],
        temperature=0.0, max_tokens=ctx.config.answer_max_tokens)
    names = answer_names(state)
    said = [a for a in read_answers(reply.text, [names.get(e) or "" for c in paths for e in c.ends]) if normalize(a)]
    said = [a for a in said if not named_in(state["question"], a)]
    if not said:
        return {"answer_reply": reply.text}
    found = _named_path_end(said, paths, names, "kg+llm", "knowledge_names_path_end") or _model_knowledge(said)
    return {**held_by_its_path(found, names), "answer_reply": reply.text}


@traced
def finalise(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """When no path sufficed: the end entities of the best phase-1 path that ends at
    named entities (the graph's answer); with no path at all, the LLM's own knowledge,
    marked as such. An answer `answer_with_knowledge` gave stands."""
    if state.get("sufficient") or state.get("answers"):
        return {}
    names = answer_names(state)
    for path in [*(state.get("topic_kept") or []), *(state.get("kept") or [])]:
        named = [e for e in path.ends if names.get(e)]
        if named:
            return _answer(path, named[:1], names, "kg", "fallback_best_path")
    ctx = runtime.context
    reply = ctx.llm.chat([{"role": "user", "content": render("answer_io", question=state["question"])}],
                         temperature=0.0, max_tokens=64)
    return _model_knowledge(read_answers(reply.text))
