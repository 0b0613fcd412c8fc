"""Path pruning (PoG 4.3): fuzzy selection by embeddings (and the path memory), then the
strategy's LLM steps, branch-reduced and/or precise selection; the best `width` paths
are kept for the answer."""

from __future__ import annotations

from collections.abc import Iterable

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agent.events import Update, traced
from agent.pog.analysis import plan_text
from agent.pog.candidates import path_text
from agent.pog.context import PoGContext
from agent.pog.scoring import PathScorer
from agent.pog.state import PathCandidate, PoGState
from prompts import batches, fitting_listing, render


class PathChoice(BaseModel):
    paths: list[int] = Field(default_factory=list)


class StartChoice(BaseModel):
    starts: list[int] = Field(default_factory=list)


@traced
def prune_paths(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    ctx, config = runtime.context, runtime.context.config
    scorer = PathScorer.for_state(ctx.embedder, config.weights, state, synthetic_memory=ctx.synthetic_memory)
    candidates = scorer.rank(state.get("candidates") or [], state.get("names"))[: config.fuzzy_keep]
    steps = [{"step": "fuzzy", "paths": candidates}]  # each step's ranking, for the trace
    plan = plan_text(state) if config.plan_in_prompts else ""
    read = candidates  # what precise selection reads: after the branch step, only the paths it kept
    if "branch" in config.strategy:
        read, others = branch_reduce(ctx, state["question"], candidates, state.get("names") or {}, plan)
        candidates = read + others
        steps.append({"step": "branch", "paths": candidates})
    if "precise" in config.strategy:
        selected = precise_select(ctx, state["question"], read, plan)
        candidates = selected + [c for c in candidates if c not in selected]
        steps.append({"step": "precise", "paths": candidates})
    kept = candidates[: config.width]
    update: Update = {"candidates": candidates, "kept": kept, "pruning_steps": steps}
    if state.get("phase") == "topic":  # what phase 3 expands and the last resort answers from
        update["topic_kept"] = kept
    elif state.get("topic_kept"):
        # Scored again by this scorer (phase 2 may have replaced the indicator), so that the
        # answer compares phase 1's best with these paths on one scale.
        rescored = {c.key: c for c in scorer.rank(state["topic_kept"], state.get("names"))}
        update["topic_kept"] = [rescored[c.key] for c in state["topic_kept"]]
    # The state keeps the names its paths need, not the whole walk's.
    needed = _entities(candidates, state.get("topic_kept") or [], kept)
    all_names = state.get("names") or {}
    update["names"] = {e: all_names.get(e) for e in needed}
    return update


def _entities(*groups: Iterable[PathCandidate]) -> set[str]:
    return {e for group in groups for c in group for e in (c.seed, *c.joins, *(x for hop in c.hops for x in hop))}


def precise_select(ctx: PoGContext, question: str, candidates: list[PathCandidate], plan: str = "") -> list[PathCandidate]:
    """The LLM picks the most useful paths, in batches of `precise_batch` (fewer when
    their texts are long), shown the `plan` (`plan_text`) when there is one. When more
    than one batch made picks, the batches compete: a final round among all their picks
    chooses (the paper's W2), so a later batch's path can beat an earlier one's. The final
    round's picks go first, then the batches' other picks, then the rest in fuzzy order."""
    config = ctx.config
    picked: list[int] = []
    batches_with_picks = 0
    for start, end in batches([len(c.text) for c in candidates], config.precise_batch):
        batch = candidates[start:end]
        if len(batch) <= 1 and start:
            break
        chosen = [start + n - 1 for n in _select(ctx, question, batch, plan)]
        batches_with_picks += bool(chosen)
        picked.extend(chosen)
    front = list(dict.fromkeys(picked))
    if batches_with_picks > 1 and len(front) > config.width:
        finalists = [candidates[i] for i in front]
        fitting, _ = fitting_listing([c.text for c in finalists])
        front = list(dict.fromkeys([front[n - 1] for n in _select(ctx, question, finalists[:fitting], plan)] + front))
    chosen = set(front)
    return [candidates[i] for i in front] + [c for i, c in enumerate(candidates) if i not in chosen]


def _select(ctx: PoGContext, question: str, shown: list[PathCandidate], plan: str) -> list[int]:
    """The model's picks among `shown` (numbers from 1, at most `width`, valid ones only)."""
    listing = "\n".join(f"{i + 1}. {c.text}" for i, c in enumerate(shown))
    reply = ctx.llm.chat([{"role": "user", "content": render("pog_select", question=question, paths=listing,
                                                             width=ctx.config.width, plan=plan)}],
                         schema=PathChoice, temperature=ctx.config.explore_temperature, max_tokens=48)
    choice: PathChoice = reply.parsed or PathChoice()
    return list(dict.fromkeys(n for n in choice.paths[: ctx.config.width] if isinstance(n, int) and 1 <= n <= len(shown)))


def branch_reduce(ctx: PoGContext, question: str, candidates: list[PathCandidate],
                  names: dict[str, str | None], plan: str = "") -> tuple[list[PathCandidate], list[PathCandidate]]:
    """Group paths by their first k steps; the LLM keeps the promising prefixes; k grows
    while more than `width` paths remain and a prefix can still split them. Returns the
    paths of kept prefixes and the others, each in fuzzy order. A path shorter than k was whole at an earlier
    length, where its start was kept: it stays, and is not offered again as a "start"
    beside the longer paths it begins (the model then took the 1-hop path to the middle
    entity for the start of a 2-hop question, and answered with that entity)."""
    config = ctx.config
    remaining = candidates
    for k in range(1, max((len(c.steps) for c in candidates), default=0) + 1):
        if len(remaining) <= config.width:
            break
        prefixes = list(dict.fromkeys((c.seed, tuple(c.steps[:k])) for c in remaining if len(c.steps) >= k))
        if len(prefixes) <= 1:  # nothing to choose between at this length: look one step further
            continue
        # The best starts that fit one prompt: a start's entity sets can be long (3-hop
        # MetaQA listings overflowed the local model's context before this cap).
        fitting, listing = fitting_listing([_prefix_text(prefix, remaining, names, config.names_per_set)
                                            for prefix in prefixes[: config.precise_batch]])
        shown = prefixes[:fitting]
        reply = ctx.llm.chat([{"role": "user", "content": render("pog_branch", question=question, starts=listing,
                                                                 width=config.width, plan=plan)}],
                             schema=StartChoice, temperature=config.explore_temperature, max_tokens=48)
        choice: StartChoice = reply.parsed or StartChoice()
        keep = {shown[n - 1] for n in choice.starts[: config.width] if 1 <= n <= len(shown)}
        if not keep:  # nothing usable: the fuzzy order stands
            break
        remaining = [c for c in remaining if len(c.steps) < k or (c.seed, tuple(c.steps[:k])) in keep]
    kept = {c.key for c in remaining}
    return remaining, [c for c in candidates if c.key not in kept]


def _prefix_text(prefix: tuple[str, tuple], candidates: list[PathCandidate], names: dict[str, str | None],
                 names_per_set: int) -> str:
    """A prefix as PoG shows it: the first k steps of the first path that has it."""
    seed, steps = prefix
    example = next(c for c in candidates if (c.seed, tuple(c.steps[: len(steps)])) == prefix)
    return path_text(seed, steps, example.hops[: len(steps)], names, names_per_set)
