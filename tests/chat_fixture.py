"""A chat over the film KG with a scripted model: the follow-up tests, the terminal
session and the web server share it."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

from agent.chat.context import ChatContext
from agent.chat.graph import build_chat_graph
from agent.embeddings import Embedder
from agent.llm import FakeLLM, LLMClient
from agent.pog.context import PoGContext
from tests.pog_fixture import analysis, film_store, scripted

# What the scripted model answers, by the question in the answer prompt.
ANSWERS = {"who directed Big": "ans: Penny Marshall", "when was Big released": "ans: 1988",
           "who directed Splash": "ans: Ron Howard", "when was Splash released": "ans: 1984"}


def film_chat_model(delay: float = 0.0) -> FakeLLM:
    """`delay`: seconds each reply takes, as a slow endpoint's would."""

    def answer(prompt: str) -> str:
        time.sleep(delay)
        return next((reply for question, reply in ANSWERS.items() if question in prompt), "ans: unknown")

    def analyse(prompt: str) -> str:  # the analysis names the film the question mentions
        time.sleep(delay)
        film = next((f for f in ("Big", "Splash") if f"{f}" in prompt.split("Question:")[-1]), "Big")
        return analysis(1, topics=(film,))

    return scripted(analyse=analyse, answer=answer)


def film_chat(tmp_path: Path, llm: LLMClient | None = None, embedder: Embedder | None = None):
    """(chat graph with a SQLite checkpointer in tmp_path, its context)."""
    context = ChatContext(PoGContext(film_store(), llm or film_chat_model(), embedder or Embedder()),
                          trace_dir=tmp_path / "traces")
    connection = sqlite3.connect(tmp_path / "chat.sqlite", check_same_thread=False)
    return build_chat_graph(checkpointer=SqliteSaver(connection)), context
