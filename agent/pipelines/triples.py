"""`triples`: the triple pipeline (agent/triples) with its optional nodes, as a pipeline."""

from __future__ import annotations

from pathlib import Path

from agent.answer_text import PipelineResult
from agent.embeddings import Embedder
from agent.linking import Entity
from agent.llm.base import LLMClient
from agent.triples.config import TriplesConfig
from agent.triples.context import TriplesContext
from agent.triples.graph import build_graph, run_question
from agent.triples.state import TriplesState
from kg_store import GraphStore
from loaders.questions import Question


class TriplesPipeline:
    name = "triples"

    def __init__(self, llm: LLMClient, store: GraphStore, embedder: Embedder, config: TriplesConfig | None = None,
                 model_weights: Path | None = None) -> None:
        self.context = TriplesContext(store, llm, embedder, config or TriplesConfig(), model_weights)
        self.graph = build_graph(self.context.config)

    def run(self, question: Question) -> TriplesState:
        topics = [Entity(id=t.id, name=t.name) for t in question.topic_entities]
        return run_question(self.context, question.text, topics, question_id=question.id, graph=self.graph)

    def answer(self, question: Question) -> PipelineResult:
        state = self.run(question)
        names = state.get("names") or {}
        shown = state.get("triples") or []
        return PipelineResult(
            predictions=state.get("answers") or [],
            raw_output=state.get("raw_output") or "",
            retrieved=[names.get(e) or e for t in shown for e in (t.head, t.tail)],
            details={"source": state.get("source"), "scorer": (state.get("subgraph") or {}).get("scorer"),
                     "subgraph_triples": (state.get("subgraph") or {}).get("triples"), "prompt_triples": len(shown)},
            trace={"events": state.get("events") or [], "topics": [t.model_dump() for t in state.get("topics") or []],
                   "evidence": state.get("evidence"), "subgraph": state.get("subgraph")},
        )
