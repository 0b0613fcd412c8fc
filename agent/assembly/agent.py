"""The one way to open the agent from settings: its store, model, embeddings and path
memory, opened together and closed together.

    from agent import open_agent
    from agent.settings import Settings

    with open_agent(Settings(store="oxigraph:./films")) as qa:
        answered = qa.ask("who directed [Big]?")
        print(answered["answers"], answered["source"], answered["why"])
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
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
            trace_path: Path | None = None, trace_id: str | None = None) -> Answered:
        """The answer to `question`, with topic entities as {id, name} when known (else
        they are linked from the text): answers, source, the rule that gave them, the
        evidence paths, calls, tokens and seconds (`agent.asking.Answered`)."""
        from agent.asking import answer_question

        return answer_question(self.context, question, topics, graph=self.graph, trace_path=trace_path,
                               trace_id=trace_id)

    def close(self) -> None:
        self._opened.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_agent(settings: Settings, *, store_url: str | None = None, read_only: bool = True,
               wait_for_model: bool = True, store_loading: Callable[[], None] | None = None,
               on_step: Callable[[str], None] | None = None) -> OpenAgent:
    """The agent the settings describe: their store (`store_url` to name another), their
    model (the embedded one started, on a thread, while the embeddings and the path memory
    load), PoG's knobs and path memory. Whatever fails to open closes what had opened.

    For a start-up that overlaps as much as it can (`kgqa ask`, `demo`):
    - `wait_for_model=False` returns before the model has started: a question's work before
      its first model request (linking, walks, pruning by embeddings) runs meanwhile, and
      that request waits for the start, raising what the start raised.
    - `store_loading` returns when the store is ready to open (a first-use load in another
      process); it is awaited after the embeddings and memory, and the store opened then.
      Without it the store opens first, so a wrong store fails before the model starts.
    - `on_step(name)` hears each start-up step end: "model weights" (joined on first use),
      "model", "embeddings", "path memory", "store"."""
    from agent.assembly.context import model_in_background, open_settings_store

    def step(name: str) -> None:
        if on_step is not None:
            on_step(name)

    opened = ExitStack()
    try:
        if store_loading is None:
            store = opened.enter_context(open_settings_store(settings, store_url, read_only=read_only))
        model = opened.enter_context(model_in_background(settings, lambda: step("model weights")))
        model.add_done_callback(lambda started: started.exception() or step("model"))
        with interrupt_deferred():  # the agent's own modules (about two seconds) load while the model starts
            from agent.assembly.context import pog_context
            from agent.embeddings import Embedder
            from agent.llm.starting import StartingLLM
            from agent.pog.graph import build_graph
            from agent.pog.memory import PathMemory

        embedder = Embedder.from_settings(settings)
        step("embeddings")
        memory = None
        if settings.pog.path_memory is not None:
            memory = PathMemory.load(settings.pog.path_memory, embedder)
            step("path memory")
        if store_loading is not None:
            store_loading()
            store = opened.enter_context(open_settings_store(settings, store_url, read_only=read_only))
            step("store")
        llm = model.result() if wait_for_model else StartingLLM(model)
        context = pog_context(settings, store, llm, embedder, memory)
        return OpenAgent(context, build_graph(settings.pog), opened)
    except BaseException:
        opened.close()
        raise


@contextmanager
def interrupt_deferred() -> Iterator[None]:
    """Ctrl-C during the block is raised when it ends: pydantic, building a model's schema
    at import, turns a KeyboardInterrupt inside it into a SchemaError and its traceback."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread hears signals
        yield
        return
    interrupted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: interrupted.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        raise KeyboardInterrupt
