"""Path pooling inside PoG (optional): the kept paths' own facts, reranked before the answer.

A kept path group stands for every concrete fact along its relation sequence; the answer
prompt normally shows each group once, with at most `names_per_set` names per set. With
pooling on, the facts of the kept groups are scored against the question, smoothed along
paths from the topic entities (`agent/optional_nodes/path_pooling.py`), the best
`pooled_facts` chosen and written as merged paths in the configured order (best last by
default), as the path-pooling paper prompts them.
The kept groups themselves (and so which entities can be answers) do not change.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.runtime import Runtime

from agent.events import Update, traced
from agent.optional_nodes.path_pooling import PoolingOptions, merged_lines, pool_scores, rerank
from agent.optional_nodes.triple_scoring import CosineScorer
from agent.pog.context import PoGContext
from agent.pog.state import PathCandidate, PoGState
from kg_store import Triple
from kg_store.paths import NeighborCache

# Facts read per kept path at most: a hub set of films times their directors stays bounded.
MAX_FACTS_PER_PATH = 300


def path_facts(path: PathCandidate, neighbours: NeighborCache, limit: int = MAX_FACTS_PER_PATH) -> list[Triple]:
    """The concrete facts of a path group, hop by hop: for each step, the edges with its
    relation and direction from the previous hop's entities to this hop's (from the
    neighbour lists the exploration already read)."""
    facts: list[Triple] = []
    previous = [path.seed]
    for (relation, forward), hop in zip(path.steps, path.hops, strict=True):
        reached = set(hop)
        edges, _ = neighbours.neighbors(previous)
        for entity in previous:
            for edge in edges.get(entity, ()):
                if edge.relation == relation and (edge.direction == "out") == forward and edge.neighbor in reached:
                    facts.append(Triple(entity, relation, edge.neighbor) if forward
                                 else Triple(edge.neighbor, relation, entity))
                    if len(facts) >= limit:
                        return facts
        previous = hop
    return facts


def pooled_evidence(question: str, paths: Sequence[PathCandidate], topics: Sequence[str], ctx: PoGContext,
                    names: dict[str, str | None]) -> tuple[str, list[dict[str, object]]]:
    """The merged-path lines of the best pooled facts (prompt order), and the facts with
    their scores for the trace."""
    config = ctx.config.pooling
    facts = list(dict.fromkeys(f for path in paths for f in path_facts(path, ctx.neighbours)))
    if not facts:
        return "", []
    scores = [float(s) for s in CosineScorer(ctx.embedder).score(question, facts, names, topics)]
    pooled = pool_scores(facts, scores, topics, PoolingOptions(search=config.search, pooling=config.pooling))
    best = sorted(range(len(facts)), key=lambda i: (-pooled[i], i))[: ctx.config.pooled_facts]
    shown = [best[i] for i in rerank(len(best), [pooled[i] for i in best], config.order)]
    lines = merged_lines([facts[i] for i in shown], names)
    trace = [{"fact": list(facts[i]), "score": round(scores[i], 6), "pooled": round(pooled[i], 6)} for i in shown]
    return "\n".join(lines), trace


@traced
def pool_kept_paths(state: PoGState, runtime: Runtime[PoGContext]) -> Update:
    """Path pooling on the kept paths: their facts, smoothed and reranked, become the
    evidence the answer prompt reads (summarise_paths uses it instead of the listing)."""
    kept = state.get("kept") or []
    topics = [t.id for t in state.get("topics") or []]
    text, facts = pooled_evidence(state["question"], kept, topics, runtime.context, state.get("names") or {})
    return {"pooled_evidence": text, "pooled_facts": facts}
