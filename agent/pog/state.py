"""The typed state the PoG nodes read and write. Everything in it is plain data (ids,
names, texts, scores), so a checkpointer can store it and a trace can show it."""

from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict

from pydantic import BaseModel, Field

from agent.linking import Entity

Phase = Literal["topic", "supplement", "expand"]
# kg: the answer ends a path explored from the topic entities; kg+llm: the LLM predicted
# it and a path from the topic entities confirmed it (phase 2); llm: the LLM's own
# knowledge, with no path behind it (the last resort).
Source = Literal["kg", "kg+llm", "llm"]
# Why the answer is what it is: each is one rule of `answering` (its docstring says which).
AnswerReason = Literal["named_path_end", "named_chain_middle", "judged_value", "memory_trusts_best",
                       "best_over_named_lower", "named_inside_path", "named_only_question",
                       "knowledge_names_path_end", "model_knowledge", "fallback_best_path"]
DecidedBy = Literal["model", "memory", "structure", "fallback"]
# Each reason: who decided (the model's reading of the paths, the path memory, a rule of
# the path ranking, or nobody: a fallback when nothing was judged sufficient), and how a
# reader is told.
ANSWER_REASONS: dict[str, tuple[DecidedBy, str]] = {
    "named_path_end": ("model", "the model named the end of a path ranked near the best"),
    "named_chain_middle": ("structure", ("the model named the middle of a chain the ranking put first, so the "
                           "chain's end answers")),
    "judged_value": ("model", "the model judged the paths sufficient and named a value a path holds"),
    "memory_trusts_best": ("memory", "the path memory trusts the best path, so its end answers"),
    "best_over_named_lower": ("structure", ("the model named the end of a path ranked far below the best, so the "
                              "best path answers")),
    "named_inside_path": ("model", "the model named an entity inside a path"),
    "named_only_question": ("fallback", ("the model named nothing the question does not, so the best path's end "
                            "answers")),
    "knowledge_names_path_end": ("model", "the model answered from its own knowledge and a path holds its answer"),
    "model_knowledge": ("model", "the model's own answer: no path holds it"),
    "fallback_best_path": ("fallback", "no path was judged sufficient, so the best path's end answers"),
}
StepTuple = tuple[str, bool]  # (relation, walked forward)


class PathCandidate(BaseModel):
    """One path group: a relation sequence from a topic entity, hops as entity sets."""

    seed: str
    steps: list[StepTuple]
    hops: list[list[str]]  # entity ids reached after each step (ends = hops[-1])
    # Other topic entities whose walks meet this path's ends, with their relation steps.
    joins: dict[str, list[StepTuple]] = Field(default_factory=dict)
    evidence: list[list[str]] = Field(default_factory=list)  # a few concrete node sequences
    text: str  # PoG's path format, with at most `names_per_set` names per set
    phase: Phase
    depth: int = 0  # hops between named entities (a hop through a CVT counts once)
    # Whether the last step leaves from every entity of the hop before: the graph says each
    # of them is a head (or, walked backwards, a tail) of its relation (`PathScorer.kinds_reached`).
    from_every_end: bool = False
    score: float = 0.0
    score_parts: dict[str, float] = Field(default_factory=dict)

    @property
    def ends(self) -> list[str]:
        return self.hops[-1] if self.hops else [self.seed]

    @property
    def key(self) -> tuple[str, tuple[StepTuple, ...]]:
        return self.seed, tuple((r, f) for r, f in self.steps)


class PriorChain(BaseModel):
    """A relation sequence that questions like this one were answered by (path memory)."""

    steps: list[StepTuple]
    weight: float
    depth: int


class PoGState(TypedDict, total=False):
    # input
    question: str
    question_id: str | None  # a path-memory entry of the same question is never used,
    question_group: str | None  # nor one of its near-twins (loaders.questions.question_group)
    given_topics: list[Entity]
    # question analysis
    topics: list[Entity]
    unheld_topics: list[Entity]  # given topics the store holds no fact about, and no name of: left out
    link_candidates: dict[str, list[Entity]]
    masked_question: str  # the topic entities' names and mentions as X (memory.mask_question)
    indicator: str
    split_questions: list[str]
    predicted_depth: int
    model_depth: int | None  # the depth the model's analysis gave (whoever set predicted_depth)
    depth_source: Literal["memory", "structure", "llm", "indicator", "default"]
    path_prior: list[PriorChain]
    asked_kind_steps: list[StepTuple]  # steps reaching the kind the question asks for (PathMemory.last_steps_of_asked_kind)
    # exploration
    phase: Phase
    depth: int
    subgraph: dict[str, object]  # what the walk read: entities, edges, hubs capped, groups
    candidates: list[PathCandidate]
    kept: list[PathCandidate]
    topic_kept: list[PathCandidate]  # the last phase-1 selection (phase 3 expands it)
    expand_round: int  # phase-3 rounds run (each expands the last round's kept paths)
    expanded: list[str]  # entities phase 3 expanded from (its visited set)
    pruning_steps: list[dict[str, object]]  # the last pruning's ranking after each step
    names: dict[str, str | None]
    # path pooling (optional): the kept paths' facts, reranked, as merged-path lines
    pooled_evidence: str
    pooled_facts: list[dict[str, object]]
    # GraphRAG-FI (optional): coarse scores, the model's picks, the integration's decisions
    fi: dict[str, object]
    # answering
    evidence: str  # the kept paths as the answer prompt shows them (or the LLM's summary)
    llm_answers: list[str]
    answer_reply: str  # the answer call's raw reply and token logprobs (GraphRAG-FI integration)
    answer_logprobs: list[tuple[str, float]] | None
    answers: list[str]
    answer_entities: list[str]
    answer_path: PathCandidate | None
    sufficient: bool
    source: Source | None
    answer_reason: AnswerReason | None
    # a superlative's ordering of the answers: the relation read and each answer's value
    constraint: dict[str, object]
    # one record per node run, for traces (appended, never replaced)
    events: Annotated[list[dict], operator.add]
