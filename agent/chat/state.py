"""The conversation's state: what a checkpointer keeps per thread. Plain data only
(ids, names, texts), so a thread resumes in a later process."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from agent.asking import Answered


class ChatTurn(Answered):
    message: str  # as the user typed it
    resolved: str  # the question PoG was asked (references replaced)
    referent: str | None  # what a reference was read as


class ChatState(TypedDict, total=False):
    message: str  # this turn's input
    resolved: str
    referent: str | None
    given_topics: list[dict[str, str]]
    turns: Annotated[list[ChatTurn], operator.add]  # appended, one per answered turn
