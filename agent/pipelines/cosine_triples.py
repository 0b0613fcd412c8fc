"""`cosine-triples` (SubgraphRAG-style baseline): the k-hop subgraph of the topic
entities from the store, as facts (triples, or two edges joined through a CVT) ranked
by embedding cosine to the question, the top k in one prompt, one LLM call."""

from __future__ import annotations

from agent.answer_text import PipelineResult, read_answers
from agent.embeddings import Embedder, cosine_rank
from agent.linking import link_entities, link_question
from agent.llm.base import LLMClient
from agent.pipelines.facts import facts_of
from kg_store import GraphStore
from loaders.questions import Question
from prompts import render


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
        seeds = self._seeds(question)
        subgraph = self.store.subgraph(seeds, hops=self.hops, max_degree=self.max_degree, max_edges=self.max_edges)
        facts = facts_of(subgraph)
        kept = []
        if facts:
            vectors = self.embedder.encode([question.text, *(f.text for f in facts)])
            kept = [facts[int(i)] for i in cosine_rank(vectors[0], vectors[1:])[: self.top_k]]
        lines = "\n".join(f.text for f in kept) or "(no facts found)"
        reply = self.llm.chat([{"role": "user", "content": render("answer_triples", triples=lines, question=question.text)}],
                              max_tokens=self.max_tokens)
        retrieved = [subgraph.names[e] or e for f in kept for e in f.entities]
        return PipelineResult(read_answers(reply.text, retrieved), reply.text, retrieved,
                              {"subgraph_triples": len(subgraph.triples), "prompt_facts": len(kept)})

    def _seeds(self, question: Question) -> list[str]:
        """The given topic entities; one given by a name the store does not hold as an id
        (a MetaQA-format file over a Freebase store) is linked by that name, as PoG links
        it; with none given, the best entity the question's words name."""
        given = question.topic_entities
        if not given:
            return [link.id for link in link_question(self.store, question.text, limit=1)]
        names = self.store.names([t.id for t in given])
        unknown = [t.name or t.id for t in given if not names.get(t.id)]
        linked, _ = link_entities(self.store, self.embedder, unknown) if unknown else ([], {})
        return [t.id for t in given if names.get(t.id)] + [e.id for e in linked]
