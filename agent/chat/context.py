"""What the chat nodes run against: the PoG context and compiled graph (built once per
process), and where turn traces are written."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.pog.context import PoGContext
from agent.pog.graph import build_graph


@dataclass
class ChatContext:
    pog: PoGContext
    trace_dir: Path | None = None  # None: no traces
    pog_graph: Any = field(init=False)

    def __post_init__(self) -> None:
        # Inside a chat turn PoG keeps no checkpoints of its own: the conversation is what
        # persists, not every exploration step of every turn.
        self.pog_graph = build_graph(self.pog.config, checkpointer=False)
