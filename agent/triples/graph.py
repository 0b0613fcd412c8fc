"""The triple pipeline's flow in one place; optional nodes join it when configured.

    link_topics -> retrieve_triples -> [pool_paths] -> [filter_fi] -> answer -> [integrate_answers]

pool_paths: path pooling; filter_fi and integrate_answers: GraphRAG-FI.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.graph import END, START, StateGraph

from agent.linking import Entity
from agent.triples import nodes
from agent.triples.config import TriplesConfig
from agent.triples.context import TriplesContext
from agent.triples.state import TriplesState


def build_graph(settings: Any = None, *, checkpointer: Any = None):
    """The compiled graph for `settings` (a Settings, or a TriplesConfig)."""
    config: TriplesConfig = getattr(settings, "triples", settings) or TriplesConfig()
    flow = ["link_topics", "retrieve_triples", *(["pool_paths"] if config.pooling.enabled else []),
            *(["filter_fi"] if config.graphrag_fi.filter else []), "answer",
            *(["integrate_answers"] if config.graphrag_fi.integrate else [])]
    graph = StateGraph(TriplesState, context_schema=TriplesContext)
    for name in flow:
        graph.add_node(name, getattr(nodes, name))
    for before, after in zip([START, *flow], [*flow, END], strict=True):
        graph.add_edge(before, after)
    return graph.compile(checkpointer=checkpointer)


def run_question(context: TriplesContext, question: str, topics: Sequence[Entity] = (), *,
                 question_id: str | None = None, graph: Any = None) -> TriplesState:
    graph = graph or build_graph(context.config)
    return graph.invoke({"question": question, "question_id": question_id, "given_topics": list(topics), "events": []},
                        context=context)
