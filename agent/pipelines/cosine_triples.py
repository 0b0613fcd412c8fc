"""`cosine-triples` (SubgraphRAG-style baseline): the k-hop subgraph of the topic
entities from the store, triples ranked by embedding cosine to the question, the top k
in one prompt, one LLM call."""

from __future__ import annotations

from agent.embeddings import Embedder, cosine_rank
from agent.llm.base import LLMClient
from agent.pipelines.base import PipelineResult, read_answers
from kg_store import UNNAMED, GraphStore, Triple
from loaders.questions import Question
from prompts import render


def triple_text(triple: Triple, names: dict[str, str | None]) -> str:
    return f"{names.get(triple.head) or UNNAMED} -> {triple.relation} -> {names.get(triple.tail) or UNNAMED}"


class CosineTriplesPipeline:
    name = "cosine-triples"

    def __init__(
        self,
        llm: LLMClient,
        store: GraphStore,
        embedder: Embedder,
        *,
        hops: int = 2,
        top_k: int = 30,
        max_degree: int = 200,
        max_edges: int = 5_000,
        max_tokens: int = 64,
    ) -> None:
        self.llm, self.store, self.embedder = llm, store, embedder
        self.hops, self.top_k, self.max_degree, self.max_edges, self.max_tokens = hops, top_k, max_degree, max_edges, max_tokens

    def answer(self, question: Question) -> PipelineResult:
        seeds = [t.id for t in question.topic_entities]
        if not seeds:  # no topic entity given: link the question's words by name search
            seeds = [m.id for m in self.store.search_entities(question.text, limit=3, partial=False)]
        subgraph = self.store.subgraph(seeds, hops=self.hops, max_degree=self.max_degree, max_edges=self.max_edges)
        texts = [triple_text(t, subgraph.names) for t in subgraph.triples]
        chosen: list[int] = []
        if texts:
            vectors = self.embedder.encode([question.text, *texts])
            chosen = [int(i) for i in cosine_rank(vectors[0], vectors[1:])[: self.top_k]]
        lines = "\n".join(texts[i] for i in chosen) or "(no facts found)"
        reply = self.llm.chat([{"role": "user", "content": render("answer_triples", triples=lines, question=question.text)}],
                              max_tokens=self.max_tokens)
        kept = [subgraph.triples[i] for i in chosen]
        retrieved = [n for t in kept for n in (subgraph.names.get(t.head), subgraph.names.get(t.tail)) if n]
        return PipelineResult(read_answers(reply.text), reply.text, retrieved,
                              {"subgraph_triples": len(subgraph.triples), "prompt_triples": len(kept)})
