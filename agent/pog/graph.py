"""The whole PoG flow in one place.

    analyse_question ──(no topic entity)──────────────────────────────┐
          │                                                           │
    explore_topic_paths ◄── go_deeper ◄──┐                            │
          │                              │ (not sufficient:           │
    prune_paths ◄── supplement_* ◄───────┤  deeper up to D_max,       │
          │     ◄── expand_nodes ◄───────┤  then phase 2, phase 3)    │
    [filter_paths_fi]                    │                            │
    [pool_kept_paths]                    │                            │
          │                              │                            │
    summarise_paths                      │                            │
          │                              │                            │
    answer_from_paths ───────────────────┘                            │
          │ (sufficient, or nothing left to try)                      │
          │ ──► [answer_with_knowledge] ──┐                           │
       finalise ◄─────────────────────────┴───────────────────────────┘
          │
    apply_superlative
          │
    [integrate_answers_fi]

Phase 1 explores from the topic entities at the predicted depth and goes one hop deeper
while the answer is not sufficient. Phase 2 runs once: supplement_with_llm matches the
LLM's guesses to the ends of paths within D_max (`supplement_search="path_ends"`), or
supplement_from_linked_guesses links them to entities and joins them to the topic
entities by a bidirectional search (`"linked"`, the paper's). Phase 3 (expand) takes
one more hop from the best paths, `expand_rounds` times. When nothing sufficed,
answer_with_knowledge lets the model answer from the paths and its own knowledge
(`final_answer="llm"`, the paper's); finalise otherwise answers with the best path.
apply_superlative orders the answers by a date or number the graph holds about them when
the question asks for "the latest", "the largest" and the like.
Nodes in [brackets] are optional: pool_kept_paths (path pooling) when
`config.pooling.enabled`; filter_paths_fi and integrate_answers_fi (GraphRAG-FI) when
`config.graphrag_fi.filter` / `config.graphrag_fi.integrate`. `config.preset` sets these
knobs together (agent/pog/config.py: PRESETS).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langgraph.graph import END, START, StateGraph

from agent.events import with_default_context
from agent.pog.analysis import analyse_question
from agent.pog.answering import answer_from_paths, answer_with_knowledge, finalise, summarise_paths
from agent.pog.config import PoGConfig
from agent.pog.constraints import apply_superlative
from agent.pog.context import PoGContext
from agent.pog.exploration import (
    expand_nodes,
    explore_topic_paths,
    go_deeper,
    supplement_from_linked_guesses,
    supplement_with_llm,
)
from agent.pog.graphrag_fi import filter_paths_fi, integrate_answers_fi
from agent.pog.pooling import pool_kept_paths
from agent.pog.pruning import prune_paths
from agent.pog.state import Entity, PoGState
from loaders.collector import cyclic_gc_paused

NodeEvent = Callable[[dict[str, Any]], None]  # hears {"node": name, "seconds": s} as each node ends


def build_graph(settings: Any = None, *, checkpointer: Any = None,
                default_context: Callable[[], PoGContext] | None = None, context_schema: type = PoGContext,
                input_schema: type | None = None, output_schema: type | None = None):
    """The compiled PoG graph for `settings` (a Settings, or a PoGConfig; default: the
    defaults). Invoke it with `context=PoGContext(...)` built from the same config (see
    `run_question`); pass a LangGraph checkpointer to keep state per thread, and
    `default_context` for runs that bring no context (LangGraph's server). The schemas
    default to PoGContext and the whole state; LangGraph's server declares its own
    (`kgqa.studio`)."""
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
        name = SUPPLEMENT_NODES[config.supplement_search]
        add(name, supplement_from_linked_guesses if config.supplement_search == "linked" else supplement_with_llm)
        later_phases.append(name)
    if config.expand:
        add("expand_nodes", expand_nodes)
        later_phases.append("expand_nodes")
    if config.final_answer == "llm":
        add("answer_with_knowledge", answer_with_knowledge)
        graph.add_edge("answer_with_knowledge", "finalise")

    graph.add_edge(START, "analyse_question")
    graph.add_conditional_edges("analyse_question", lambda s: "explore_topic_paths" if s.get("topics") else "finalise",
                                ["explore_topic_paths", "finalise"])
    graph.add_edge("explore_topic_paths", "prune_paths")
    graph.add_edge("go_deeper", "explore_topic_paths")
    for phase in later_phases:
        graph.add_edge(phase, "prune_paths")
    # Optional nodes between pruning and the answer: GraphRAG-FI's filter, path pooling.
    before_answer = ["prune_paths"]
    if config.graphrag_fi.filter:
        add("filter_paths_fi", filter_paths_fi)
        before_answer.append("filter_paths_fi")
    if config.pooling.enabled:  # path pooling reranks the kept paths' facts for the answer
        add("pool_kept_paths", pool_kept_paths)
        before_answer.append("pool_kept_paths")
    for step, following in zip(before_answer, [*before_answer[1:], "summarise_paths"], strict=True):
        graph.add_edge(step, following)
    graph.add_edge("summarise_paths", "answer_from_paths")
    last_resort = ["answer_with_knowledge"] if config.final_answer == "llm" else []
    graph.add_conditional_edges("answer_from_paths", lambda s: next_step(s, config),
                                ["finalise", "go_deeper", *later_phases, *last_resort])
    graph.add_edge("finalise", "apply_superlative")
    if config.graphrag_fi.integrate:  # GraphRAG-FI weighs the final answer against the model's own
        add("integrate_answers_fi", integrate_answers_fi)
        graph.add_edge("apply_superlative", "integrate_answers_fi")
        graph.add_edge("integrate_answers_fi", END)
    else:
        graph.add_edge("apply_superlative", END)
    return graph.compile(checkpointer=checkpointer)


SUPPLEMENT_NODES = {"path_ends": "supplement_with_llm", "linked": "supplement_from_linked_guesses"}


def next_step(state: PoGState, config: PoGConfig) -> str:
    """After an answer attempt: finish when it sufficed; otherwise one hop deeper while
    phase 1 is under D_max, then phase 2 once, then phase 3 for `expand_rounds` rounds;
    then the last resort (the model answering from the paths and its own knowledge with
    `final_answer="llm"`, else the best path)."""
    if state.get("sufficient"):
        return "finalise"
    phase = state.get("phase")
    if phase == "topic" and state["depth"] < config.max_depth:
        return "go_deeper"
    if phase == "topic" and config.supplement:
        return SUPPLEMENT_NODES[config.supplement_search]
    if phase in ("topic", "supplement") and config.expand and state.get("topic_kept"):
        return "expand_nodes"
    if phase == "expand" and (state.get("expand_round") or 0) < config.expand_rounds and state.get("kept"):
        return "expand_nodes"
    if config.final_answer == "llm" and (state.get("kept") or state.get("topic_kept")):
        return "answer_with_knowledge"
    return "finalise"


def run_question(context: PoGContext, question: str, topics: Sequence[Entity] = (), *, question_id: str | None = None,
                 question_group: str | None = None, graph: Any = None,
                 on_node: NodeEvent | None = None) -> PoGState:
    """One question through the graph; returns the final state. Every entry point runs
    questions through here (`kgqa eval` directly, the chat and `kgqa ask`/`serve` through
    `agent.asking.answer_question`). A benchmark question's id and group keep its own
    and its near-twins' path-memory entries out. `on_node` hears each node as it ends
    (`{"node": name, "seconds": s}`)."""
    graph = graph or build_graph(context.config)
    inputs = {"question": question, "question_id": question_id, "question_group": question_group,
              "given_topics": list(topics), "events": []}
    with cyclic_gc_paused():  # the walks' many short-lived tuples (loaders.collector)
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
