"""`kgqa chat`: a terminal conversation with the PoG agent. Threads persist in SQLite
(resume with --thread), follow-ups like "and where was he born?" resolve to earlier
turns' entities, each PoG node shows as it finishes, Ctrl-C stops the turn only."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from kgqa.chat_db import open_chat_db
from kgqa.cli.ask import demo_kg, print_answer
from kgqa.cli.common import (
    DepthOpt,
    LLMOpt,
    MemoryOpt,
    PresetOpt,
    StoreOpt,
    StrategyOpt,
    WidthOpt,
    app,
    console,
    fail,
    out,
    settings_from,
    with_pog_flags,
)
from kgqa.settings import Settings

HELP = """/paths   the evidence paths of the last answer
/trace   the last answer's reasoning trace (as a tree; the file path to open it with kgqa trace html)
/config  the settings this chat runs with
/new     start a new thread
/quit    leave (Ctrl-D too); Ctrl-C stops a running turn"""


@app.command()
def chat(
    store: StoreOpt = None,
    thread: Annotated[str | None, typer.Option("--thread", help="Resume this thread (default: a new one).")] = None,
    demo: Annotated[bool, typer.Option("--demo", help="Chat over the bundled demo KG (loaded on first use).")] = False,
    preset: PresetOpt = None,
    strategy: StrategyOpt = None,
    width: WidthOpt = None,
    depth: DepthOpt = None,
    path_memory: MemoryOpt = None,
    llm: LLMOpt = None,
) -> None:
    """Chat with the PoG agent over a graph store; threads persist and resume."""
    settings = with_pog_flags(settings_from(store, llm), strategy, width, depth, path_memory, preset)
    with agent_session(settings, demo) as (graph, context):
        session = ChatSession(graph, context, settings, thread or new_thread_id())
        session.greet()
        session.loop(lambda: console.input("[bold cyan]you>[/] "))


def new_thread_id() -> str:
    return uuid.uuid4().hex[:8]


@contextmanager
def agent_session(settings: Settings, demo: bool = False) -> Iterator[tuple[Any, Any]]:
    """The chat graph with its SQLite checkpointer, and the context it runs in (store,
    model, embeddings), all closed on exit; shared by `chat` and `serve`."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from agent import open_agent
    from agent.assembly.context import warm_up
    from agent.chat.context import ChatContext
    from agent.chat.graph import build_chat_graph
    from agent.llm.base import LLMError
    from kg_store import StoreError

    with ExitStack() as stack:
        loaded = stack.enter_context(demo_kg(settings)) if demo else None
        try:  # the demo KG's first-use load goes on while the model starts
            qa = stack.enter_context(open_agent(loaded.settings if loaded else settings,
                                                store_loading=loaded.ready if loaded else None))
        except (LLMError, StoreError, FileNotFoundError) as exc:
            raise fail(str(exc)) from exc
        if qa.context.store.stats().triples == 0:
            raise fail(f"{qa.context.store.display_url} is empty: load a KG first (kgqa load), or use --demo", 2)
        context = ChatContext(qa.context, trace_dir=settings.trace_dir)
        prime = settings.llm_warm_up and not settings.llm_base_url  # our own server: reading ahead costs nobody anything
        threading.Thread(target=warm_up, args=(context.pog,), kwargs={"prime_model": prime}, name="warm-up",
                         daemon=True).start()
        connection = open_chat_db(settings.chat_db, lambda note: console.print(f"[yellow]warning:[/] {escape(note)}",
                                                                               highlight=False))
        stack.callback(connection.close)
        yield build_chat_graph(checkpointer=SqliteSaver(connection)), context


class ChatSession:
    """The terminal conversation: reads lines, runs turns, renders answers and commands."""

    def __init__(self, graph: Any, context: Any, settings: Settings, thread: str, screen: Console = out) -> None:
        self.graph, self.context, self.settings, self.thread, self.screen = graph, context, settings, thread, screen

    @property
    def config(self) -> dict:
        return {"configurable": {"thread_id": self.thread}}

    def turns(self) -> list[dict]:
        return (self.graph.get_state(self.config).values or {}).get("turns") or []

    def greet(self) -> None:
        previous = self.turns()
        self.screen.print(f"[bold]kgqa chat[/] · thread [cyan]{self.thread}[/] (resume with --thread {self.thread}) "
                          f"· {self.context.pog.store.display_url} · {self.context.pog.llm.model_name}")
        if previous:
            last = previous[-1]
            self.screen.print(f"[dim]resumed: {len(previous)} earlier turns; last: {last['resolved']} → "
                              f"{', '.join(last['answers'][:5]) or '(none)'}[/]", highlight=False)
        self.screen.print("[dim]ask a question; /help for commands[/]")

    def loop(self, read: Callable[[], str]) -> None:
        while True:
            try:
                line = read().strip()
            except EOFError:
                return
            except KeyboardInterrupt:
                self.screen.print("[dim](/quit or Ctrl-D to leave)[/]")
                continue
            if not line:
                continue
            if line.startswith("/"):
                if self.command(line) == "quit":
                    return
                continue
            self.turn(line)

    def turn(self, message: str) -> dict | None:
        """One question: node progress as it streams, then the answer. Ctrl-C drops the
        turn (the thread keeps its earlier turns) and the session goes on."""
        from kg_store import KGQAError

        try:
            for mode, chunk in self.graph.stream({"message": message}, self.config, context=self.context,
                                                 stream_mode=["updates", "custom"]):
                if mode == "custom":
                    seconds = chunk.get("seconds")
                    self.screen.print(f"[dim]  · {chunk['node']}"
                                      + (f" {seconds:.2f} s" if seconds is not None else "") + "[/]")
                elif "resolve_turn" in chunk and chunk["resolve_turn"].get("referent"):
                    resolved = chunk["resolve_turn"]
                    self.screen.print(f"[dim]  → {resolved['resolved']}[/]", highlight=False)
        except KeyboardInterrupt:
            self.screen.print("[yellow]turn interrupted[/] (the conversation so far is kept)")
            return None
        except KGQAError as exc:  # the conversation goes on: say what failed
            self.screen.print(f"[bold red]error:[/] {exc}")
            return None
        last = self.turns()[-1]
        print_answer(last, self.screen)
        return last

    def command(self, line: str) -> str | None:
        name = line.split()[0].lower()
        turns = self.turns()
        if name in ("/quit", "/exit"):
            return "quit"
        if name == "/new":
            self.thread = new_thread_id()
            self.screen.print(f"new thread [cyan]{self.thread}[/]")
        elif name == "/config":
            shown = {"thread": self.thread, "store": self.context.pog.store.display_url,
                     "model": self.context.pog.llm.model_name, "traces": str(self.settings.trace_dir),
                     "pog": json.loads(self.context.pog.config.model_dump_json())}
            self.screen.print_json(json.dumps(shown))
        elif name in ("/paths", "/trace") and not turns:
            self.screen.print("[dim]no answer yet in this thread[/]")
        elif name == "/paths":
            print_answer(turns[-1], self.screen)
        elif name == "/trace":
            self.show_trace(turns[-1])
        else:
            self.screen.print(HELP, highlight=False)
        return None

    def show_trace(self, turn: dict) -> None:
        from kgqa.traces import TraceError, load_trace
        from kgqa.traces.tree import trace_tree

        path = self.settings.trace_dir / f"{turn.get('trace_id')}.json"
        try:
            self.screen.print(trace_tree(load_trace(path)))
        except TraceError as exc:
            self.screen.print(f"[red]{exc}[/]")
            return
        self.screen.print(f"[dim]trace: {path} (kgqa trace html {path} -o trace.html)[/]", highlight=False)

