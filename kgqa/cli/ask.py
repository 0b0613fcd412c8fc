"""`kgqa ask`: one question through the PoG agent; `kgqa demo`: the same over the bundled
demo KG, loaded on first use."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import ExitStack, contextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from kgqa.cli.common import (
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
    opened,
    out,
    print_json,
    settings_from,
    with_node_flags,
    with_pog_flags,
)
from kgqa.cli.data import load_with_progress, print_load_report
from kgqa.settings import Settings

T = TypeVar("T")
DEMO_KG = "metaqa_kb.txt.gz"
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


@contextmanager
def demo_settings(settings: Settings, store: str | None = None) -> Iterator[Settings]:
    """The settings for the demo: its store (the bundled film KG loaded into it on first
    use) and, unless one is configured, the bundled path memory."""
    url = store or settings.demo_store_url
    with opened(settings, url) as target:
        if target.stats().triples == 0:
            with resources.as_file(resources.files("kgqa") / "data" / DEMO_KG) as kb:
                # on stderr: `kgqa demo --json` prints its answer alone on stdout
                print_load_report(load_with_progress(target, "metaqa", kb, False, settings.schema_prefixes), console)
    settings = settings.model_copy(update={"store": url})
    if settings.pog.path_memory is not None:
        yield settings
        return
    with resources.as_file(resources.files("kgqa") / "data" / DEMO_MEMORY) as memory:
        yield settings.model_copy(update={"pog": settings.pog.model_copy(update={"path_memory": Path(memory)})})


def answer_one(settings: Settings, store_url: str | None, text: str, topics: list[str], trace_path: Path | None,
               as_json: bool, *, demo_store: str | None = None) -> None:
    """One question through the same run the chat's turns use, printed as `kgqa ask` shows
    it. The model starts in the background while the store opens (the demo's is loaded on
    first use) and the embeddings load; each start-up step is shown as it ends. With
    `demo_store` ("" for the default place) the bundled demo KG and memory are used."""
    from agent.answer import answer_question
    from agent.embeddings import Embedder
    from agent.factory import model_in_background, pog_context
    from agent.llm.base import LLMClient, LLMError
    from agent.pog.memory import PathMemory
    from loaders.records import MalformedInput

    if not text.strip():
        raise fail("the question is empty", 2)
    steps = StartupSteps(show=not as_json)
    with ExitStack() as stack:
        def start_model() -> Future[LLMClient]:
            started = stack.enter_context(model_in_background(settings))
            started.add_done_callback(lambda done: done.exception() or steps.done("model"))
            return started

        try:
            model = None
            if demo_store is not None:  # the demo KG loads (on first use) while the model starts
                model = start_model()
                settings = steps.timed("store", lambda: stack.enter_context(demo_settings(settings, demo_store or None)))
            store = stack.enter_context(opened(settings, store_url or settings.store_url, read_only=True))
            model = model or start_model()  # after the store opened: a wrong store fails at once
            embedder = steps.timed("embeddings", lambda: Embedder.from_settings(settings))
            memory = None if settings.pog.path_memory is None else steps.timed(
                "path memory", lambda: PathMemory.load(settings.pog.path_memory, embedder))
            context = pog_context(settings, store, model.result(), embedder, memory)
            turn = answer_question(context, text.strip(), [{"id": t} for t in topics], trace_id="ask",
                                   trace_path=trace_path)
        except (LLMError, MalformedInput, FileNotFoundError) as exc:
            raise fail(str(exc)) from exc
    summary = {key: turn[key] for key in
               ("answers", "unheld_topics", "paths", "llm_calls", "prompt_tokens", "completion_tokens", "seconds",
                "source")}
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
        screen.print(f"[dim]{SOURCES[summary['source']]}[/]")
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
    """`Tom Hanks [m.0bxtg] -> film.actor.film -> ...`; ids only where they differ from names."""
    def label(e: dict) -> str:
        return e["name"] if e["name"] == e["id"] else f"{e['name']} [{e['id']}]"

    parts = [label(sequence[0])]
    for (relation, forward), node in zip(relations, sequence[1:], strict=False):
        parts += [f"-> {relation} ->" if forward else f"<- {relation} <-", label(node)]
    return " ".join(parts)
