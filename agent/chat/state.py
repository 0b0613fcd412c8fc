"""The conversation's state: what a checkpointer keeps per thread. Plain data only
(ids, names, texts), so a thread resumes in a later process."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


class ChatTurn(TypedDict):
    message: str  # as the user typed it
    resolved: str  # the question PoG was asked (references replaced)
    referent: str | None  # what a reference was read as
    topics: list[dict[str, str]]  # {id, name}
    answers: list[str]
    answer_entities: list[dict[str, str]]  # {id, name}: what a later "he" / "it" can mean
    source: str | None
    paths: list[dict[str, Any]]  # the evidence paths, as `kgqa ask --json` gives them
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    trace_id: str | None


class ChatState(TypedDict, total=False):
    message: str  # this turn's input
    resolved: str
    referent: str | None
    given_topics: list[dict[str, str]]
    turns: Annotated[list[ChatTurn], operator.add]  # appended, one per answered turn
