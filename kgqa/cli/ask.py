"""`kgqa ask`: one question through the PoG agent; `kgqa demo`: the same over the bundled
demo KG, loaded on first use."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from kg_store.errors import KGQAError
from kg_store.model import is_value_node, shown_id
from kg_store.registry import in_memory
from kgqa.cli.common import (
    Bar,
    DepthOpt,
    JsonOpt,
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
    print_json,
    progress_bar,
    settings_from,
    with_node_flags,
    with_pog_flags,
)
from kgqa.cli.data import print_load_report
from kgqa.settings import Settings
from loaders.background import BackgroundLoad

T = TypeVar("T")
DEMO_KG = "metaqa_kb.txt.gz"
# The facts it holds: a demo store with fewer was loaded part way (a Ctrl-C), and is completed.
DEMO_FACTS = 129_411
DEMO_MEMORY = "metaqa_path_memory.jsonl.gz"
DEMO_QUESTION = "Who directed the movies that Tom Hanks acted in?"
SOURCES = {"kg": "from the knowledge graph", "kg+llm": "the model's guess, confirmed by a knowledge-graph path",
           "llm": "the model's own knowledge: no knowledge-graph path supports it"}


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, e.g. 'who directed Forrest Gump'.")],
    topic: Annotated[list[str] | None, typer.Option("--topic", help="Topic entity id (repeatable); "
                                                    "default: found in the question and linked by name.")] = None,
    store: StoreOpt = None,
    preset: PresetOpt = None,
    strategy: StrategyOpt = None,
    width: WidthOpt = None,
    depth: DepthOpt = None,
    path_memory: MemoryOpt = None,
    pooling: Annotated[bool | None, typer.Option("--pooling/--no-pooling",
                                                 help="Path pooling: the answer reads the kept paths' best facts.")] = None,
    llm: LLMOpt = None,
    trace: Annotated[Path | None, typer.Option("--trace", help="Write the reasoning trace (JSON) here.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Answer a question over a graph store with the Paths-over-Graph agent."""
    settings = with_node_flags(with_pog_flags(settings_from(store, llm), strategy, width, depth, path_memory, preset),
                               pooling={"enabled": pooling})
    answer_one(settings, settings.store_url, question, topic or [], trace, as_json)


@app.command()
def demo(
    question: Annotated[str, typer.Argument(help="A question about films.")] = DEMO_QUESTION,
    store: Annotated[str | None, typer.Option("--store", help="Store for the demo KG; default DATA_DIR/demo-store.")] = None,
    llm: LLMOpt = None,
    trace: Annotated[Path | None, typer.Option("--trace", help="Write the reasoning trace (JSON) here.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Load the bundled demo KG (the MetaQA film KB) into the embedded store if needed, then
    answer a question over it with the embedded model and the bundled path memory."""
    answer_one(settings_from(llm=llm), None, question, [], trace, as_json, demo_store=store or "")
    if not as_json:
        console.print('[dim]ask another: kgqa demo "which movies did the director of Big direct?"[/]')


class DemoKG:
    """The demo's store, the bundled film KG loaded into it on first use (in a child
    process, while this one goes on starting up), and the settings that answer over it
    with the bundled path memory (unless one is configured)."""

    def __init__(self, settings: Settings, loading: BackgroundLoad, progress: ExitStack) -> None:
        self.settings, self._loading, self._progress = settings, loading, progress

    def ready(self) -> None:
        """Wait for the first-use load and print its report (on stderr: `kgqa demo --json`
        prints its answer alone on stdout); at once when the store was loaded."""
        report = self._loading.wait()
        self._progress.close()
        if report is not None:
            print_load_report(report, console)


@contextmanager
def demo_kg(settings: Settings, store: str | None = None) -> Iterator[DemoKG]:
    """Start the demo's store: its first-use load shows its progress as soon as it starts,
    and runs until `.ready()` is awaited."""
    from agent.assembly.context import store_options

    url = store or settings.demo_store_url
    if in_memory(url):
        raise fail(f"the demo needs a store that outlives its loading, not {url}: an on-disk "
                   "oxigraph:PATH or a server", 2)
    with ExitStack() as stack:
        data = resources.files("kgqa") / "data"
        kb = stack.enter_context(resources.as_file(data / DEMO_KG))
        progress = stack.enter_context(ExitStack())  # the load's bar, from the load's start to `ready`
        bars: list[Bar] = []

        def started() -> None:
            bars.append(progress.enter_context(progress_bar(f"metaqa {kb.name}", kb.stat().st_size, in_bytes=True)))

        loading = stack.enter_context(BackgroundLoad(
            url, "metaqa", kb, store_options=store_options(settings), facts=DEMO_FACTS,
            on_start=started, on_bytes=lambda n: bars[0].update(advance=n)))
        settings = settings.model_copy(update={"store": url})
        if settings.pog.path_memory is None:
            memory = stack.enter_context(resources.as_file(data / DEMO_MEMORY))
            settings = settings.model_copy(update={"pog": settings.pog.model_copy(update={"path_memory": memory})})
        try:
            yield DemoKG(settings, loading, progress)
        except KeyboardInterrupt:
            if loading.done:
                raise
            raise fail("interrupted while the demo KG was loading: the store keeps what was written, and "
                       "`kgqa demo` again completes it (loading is idempotent, nothing is duplicated)", 130) from None


def answer_one(settings: Settings, store_url: str | None, text: str, topics: list[str], trace_path: Path | None,
               as_json: bool, *, demo_store: str | None = None) -> None:
    """One question through the same run the chat's turns use, printed as `kgqa ask` shows
    it. The model starts in the background while the store opens, the agent's modules,
    embeddings and path memory load, and the question's work before its first model
    request runs; each start-up step is shown as it ends. With `demo_store` ("" for the
    default place) the bundled demo KG (loaded on first use, in a child process meanwhile)
    and memory are used."""
    if not text.strip():
        raise fail("the question is empty", 2)
    steps = StartupSteps(show=not as_json)
    with ExitStack() as stack:
        try:
            demo = stack.enter_context(demo_kg(settings, demo_store or None)) if demo_store is not None else None
            from agent import open_agent

            qa = stack.enter_context(open_agent(
                demo.settings if demo else settings, store_url=None if demo else store_url, wait_for_model=False,
                store_loading=demo.ready if demo else None, on_step=steps.done))
            turn = qa.ask(text.strip(), [{"id": t} for t in topics], trace_id="ask", trace_path=trace_path)
        except (KGQAError, FileNotFoundError) as exc:
            raise fail(str(exc)) from exc
        # Shown before the model's server and the store close (which takes a moment).
        summary = {key: turn[key] for key in
                   ("answers", "unheld_topics", "paths", "llm_calls", "prompt_tokens", "completion_tokens", "seconds",
                    "source", "sufficient", "answer_reason", "decided_by", "why")}
        if as_json:
            print_json({**summary, "startup_seconds": steps.seconds})
            return
        print_answer(summary)
        if trace_path is not None:
            console.print(f"trace: {trace_path}")


class StartupSteps:
    """Start-up steps, each shown (on stderr) as it ends with the seconds since the command
    began (steps overlap: the model starts in the background), and kept for --json."""

    def __init__(self, *, show: bool) -> None:
        self.show, self.started, self.seconds = show, time.monotonic(), {}

    def timed(self, name: str, step: Callable[[], T]) -> T:
        result = step()
        self.done(name)
        return result

    def done(self, name: str) -> None:
        self.seconds[name] = round(time.monotonic() - self.started, 2)
        if self.show:
            console.print(f"[dim]· {name} ready at {self.seconds[name]:.1f} s[/]")


def print_answer(summary: dict, screen: Console = out) -> None:
    """An answer with its source, evidence paths (names and ids) and cost."""
    answers = summary["answers"]
    shown = ", ".join(answers[:10]) + (f" (+{len(answers) - 10} more)" if len(answers) > 10 else "")
    screen.print(f"[bold]Answer:[/] {escape(shown) or '(none)'}", highlight=False)
    if summary["source"]:
        why = f" · {summary['why']}" if summary.get("why") else ""
        screen.print(f"[dim]{SOURCES[summary['source']]}{escape(why)}[/]", highlight=False)
    unheld = [t["name"] for t in summary.get("unheld_topics") or []]
    if unheld:
        screen.print(f"[yellow]Not in the graph, so left out: {escape(', '.join(unheld))}[/]", highlight=False)
    if summary["paths"]:
        screen.print("[bold]Evidence paths:[/]")
    for number, path in enumerate(summary["paths"], 1):
        mark = " [green](answer)[/]" if path["answer"] else ""
        screen.print(f" {number}. {escape(path['text'])}  [dim]score {path['score']:.2f}[/]{mark}", highlight=False)
        for sequence in path["evidence"][:3]:
            concrete = _with_ids(sequence, path["relations"])
            if concrete != path["text"]:  # a one-entity path with names as ids says nothing new
                screen.print("    " + escape(concrete), highlight=False, style="dim")
    screen.print(f"[dim]{summary['llm_calls']} LLM calls, {summary['prompt_tokens']} prompt + "
                 f"{summary['completion_tokens']} completion tokens, {summary['seconds']:.1f} s[/]")


def _with_ids(sequence: list[dict], relations: list[list]) -> str:
    """`Tom Hanks [m.0bxtg] -> film.actor.film -> ...`; ids only where they differ from names,
    a literal value quoted."""
    def label(e: dict) -> str:
        if is_value_node(e["id"]):
            return shown_id(e["id"])
        return e["name"] if e["name"] == e["id"] else f"{e['name']} [{e['id']}]"

    parts = [label(sequence[0])]
    for (relation, forward), node in zip(relations, sequence[1:], strict=False):
        parts += [f"-> {relation} ->" if forward else f"<- {relation} <-", label(node)]
    return " ".join(parts)
