"""The one way to open the agent from settings: its store, model, embeddings and path
memory, opened together and closed together.

    from agent import open_agent
    from agent.settings import Settings

    with open_agent(Settings(store_url="oxigraph:./films")) as qa:
        answered = qa.ask("who directed [Big]?")
        print(answered["answers"], answered["source"], answered["why"])
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from agent.asking import Answered
    from agent.pog.context import PoGContext
    from agent.settings import Settings


class OpenAgent:
    """PoG over an open store and model. `ask` answers one question with its evidence,
    cost and (when asked for) a trace; `close()`, or leaving its `with` block, closes the
    store and stops the model this agent opened."""

    def __init__(self, context: PoGContext, graph: Any, opened: ExitStack) -> None:
        self.context, self.graph, self._opened = context, graph, opened

    def ask(self, question: str, topics: Sequence[dict[str, str]] = (), *,
            trace_path: Path | None = None) -> Answered:
        """The answer to `question`, with topic entities as {id, name} when known (else
        they are linked from the text): answers, source, the rule that gave them, the
        evidence paths, calls, tokens and seconds (`agent.asking.Answered`)."""
        from agent.asking import answer_question

        return answer_question(self.context, question, topics, graph=self.graph, trace_path=trace_path)

    def close(self) -> None:
        self._opened.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_agent(settings: Settings, *, store_url: str | None = None, read_only: bool = True) -> OpenAgent:
    """The agent the settings describe: their store (`store_url` to name another), their
    model (the embedded one started, on a thread, while the embeddings and the path memory
    load), PoG's knobs and path memory. Whatever fails to open closes what had opened."""
    from agent.assembly.context import model_in_background, open_settings_store, pog_context
    from agent.embeddings import Embedder
    from agent.pog.graph import build_graph

    opened = ExitStack()
    try:
        store = opened.enter_context(open_settings_store(settings, store_url, read_only=read_only))
        model = opened.enter_context(model_in_background(settings))
        embedder = Embedder.from_settings(settings)  # while the model starts
        context = pog_context(settings, store, model.result(), embedder)
        return OpenAgent(context, build_graph(settings.pog), opened)
    except BaseException:
        opened.close()
        raise
