"""The whole PoG flow in one place.

    analyse_question ──(no topic entity)──────────────────────────────┐
          │                                                           │
    explore_topic_paths ◄── go_deeper ◄──┐                            │
          │                              │ (not sufficient:           │
    prune_paths ◄── supplement_with_llm ◄┤  deeper up to D_max,       │
          │     ◄── expand_nodes ◄───────┤  then phase 2, phase 3)    │
    [filter_paths_fi]                    │                            │
    [pool_kept_paths]                    │                            │
          │                              │                            │
    summarise_paths                      │                            │
          │                              │                            │
    answer_from_paths ───────────────────┘                            │
          │ (sufficient, or nothing left to try)                      │
       finalise ◄─────────────────────────────────────────────────────┘
          │
    apply_superlative
          │
    [integrate_answers_fi]

Phase 1 explores from the topic entities at the predicted depth and goes one hop deeper
while the answer is not sufficient; phase 2 (supplement) follows the LLM's own guesses;
phase 3 (expand) takes one more hop from the best phase-1 paths; each runs once.
apply_superlative orders the answers by a date or number the graph holds about them when
the question asks for "the latest", "the largest" and the like.
Nodes in [brackets] are optional: pool_kept_paths (path pooling) when
`config.pooling.enabled`; filter_paths_fi and integrate_answers_fi (GraphRAG-FI) when
`config.fi.filter` / `config.fi.integrate`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langgraph.graph import END, START, StateGraph

from agent.events import with_default_context
from agent.pog.analysis import analyse_question
from agent.pog.answering import answer_from_paths, finalise, summarise_paths
from agent.pog.config import PoGConfig
from agent.pog.constraints import apply_superlative
from agent.pog.context import PoGContext
from agent.pog.exploration import expand_nodes, explore_topic_paths, go_deeper, supplement_with_llm
from agent.pog.fi import filter_paths_fi, integrate_answers_fi
from agent.pog.pooling import pool_kept_paths
from agent.pog.pruning import prune_paths
from agent.pog.state import Entity, PoGState

NodeEvent = Callable[[dict[str, Any]], None]  # hears {"node": name, "seconds": s} as each node ends


def build_graph(settings: Any = None, *, checkpointer: Any = None,
                default_context: Callable[[], PoGContext] | None = None, context_schema: type = PoGContext,
                input_schema: type | None = None, output_schema: type | None = None):
    """The compiled PoG graph for `settings` (a Settings, or a PoGConfig; default: the
    defaults). Invoke it with `context=PoGContext(...)` built from the same config (see
    `run_question`); pass a LangGraph checkpointer to keep state per thread, and
    `default_context` for runs that bring no context (LangGraph's server). The schemas
    default to PoGContext and the whole state; LangGraph's server declares its own
    (`agent.studio`)."""
    config: PoGConfig = getattr(settings, "pog", settings) or PoGConfig()
    graph = StateGraph(PoGState, context_schema=context_schema, input_schema=input_schema, output_schema=output_schema)

    def add(name: str, node: Any) -> None:
        graph.add_node(name, node if default_context is None else with_default_context(node, default_context))

    add("analyse_question", analyse_question)
    add("explore_topic_paths", explore_topic_paths)
    add("go_deeper", go_deeper)
    add("prune_paths", prune_paths)
    add("summarise_paths", summarise_paths)
    add("answer_from_paths", answer_from_paths)
    add("finalise", finalise)
    add("apply_superlative", apply_superlative)
    later_phases = []
    if config.supplement:
        add("supplement_with_llm", supplement_with_llm)
        later_phases.append("supplement_with_llm")
    if config.expand:
        add("expand_nodes", expand_nodes)
        later_phases.append("expand_nodes")

    graph.add_edge(START, "analyse_question")
    graph.add_conditional_edges("analyse_question", lambda s: "explore_topic_paths" if s.get("topics") else "finalise",
                                ["explore_topic_paths", "finalise"])
    graph.add_edge("explore_topic_paths", "prune_paths")
    graph.add_edge("go_deeper", "explore_topic_paths")
    for phase in later_phases:
        graph.add_edge(phase, "prune_paths")
    # Optional nodes between pruning and the answer: GraphRAG-FI's filter, path pooling.
    before_answer = ["prune_paths"]
    if config.fi.filter:
        add("filter_paths_fi", filter_paths_fi)
        before_answer.append("filter_paths_fi")
    if config.pooling.enabled:  # path pooling reranks the kept paths' facts for the answer
        add("pool_kept_paths", pool_kept_paths)
        before_answer.append("pool_kept_paths")
    for step, following in zip(before_answer, [*before_answer[1:], "summarise_paths"], strict=True):
        graph.add_edge(step, following)
    graph.add_edge("summarise_paths", "answer_from_paths")
    graph.add_conditional_edges("answer_from_paths", lambda s: next_step(s, config),
                                ["finalise", "go_deeper", *later_phases])
    graph.add_edge("finalise", "apply_superlative")
    if config.fi.integrate:  # GraphRAG-FI weighs the final answer against the model's own
        add("integrate_answers_fi", integrate_answers_fi)
        graph.add_edge("apply_superlative", "integrate_answers_fi")
        graph.add_edge("integrate_answers_fi", END)
    else:
        graph.add_edge("apply_superlative", END)
    return graph.compile(checkpointer=checkpointer)


def next_step(state: PoGState, config: PoGConfig) -> str:
    """After an answer attempt: finish when it sufficed; otherwise one hop deeper while
    phase 1 is under D_max, then phase 2, then phase 3, each once; then the last resort."""
    if state.get("sufficient"):
        return "finalise"
    phase = state.get("phase")
    if phase == "topic" and state["depth"] < config.max_depth:
        return "go_deeper"
    if phase == "topic" and config.supplement:
        return "supplement_with_llm"
    if phase in ("topic", "supplement") and config.expand and state.get("topic_kept"):
        return "expand_nodes"
    return "finalise"


def run_question(context: PoGContext, question: str, topics: Sequence[Entity] = (), *, question_id: str | None = None,
                 question_group: str | None = None, graph: Any = None,
                 on_node: NodeEvent | None = None) -> PoGState:
    """One question through the graph; returns the final state. Every entry point runs
    questions through here (`kgqa eval` directly, the chat and `kgqa ask`/`serve` through
    `agent.answer.answer_question`). A benchmark question's id and group keep its own
    and its near-twins' path-memory entries out. `on_node` hears each node as it ends
    (`{"node": name, "seconds": s}`)."""
    graph = graph or build_graph(context.config)
    inputs = {"question": question, "question_id": question_id, "question_group": question_group,
              "given_topics": list(topics), "events": []}
    if on_node is None:
        return graph.invoke(inputs, context=context)
    state: PoGState = {}
    for mode, chunk in graph.stream(inputs, context=context, stream_mode=["updates", "values"]):
        if mode == "values":
            state = chunk
            continue
        for node, update in chunk.items():
            event = (update or {}).get("events") or [{}]
            on_node({"node": node, "seconds": event[-1].get("seconds")})
    return state
