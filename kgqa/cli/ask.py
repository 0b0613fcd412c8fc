"""`kgqa ask`: one question through the PoG agent; `kgqa demo`: the same over the bundled
demo KG, loaded on first use."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated

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
    with demo_settings(settings_from(llm=llm), store) as settings:
        answer_one(settings, settings.store_url, question, [], trace, as_json)
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
                print_load_report(load_with_progress(target, "metaqa", kb, False, settings.schema_prefixes))
    settings = settings.model_copy(update={"store": url})
    if settings.pog.path_memory is not None:
        yield settings
        return
    with resources.as_file(resources.files("kgqa") / "data" / DEMO_MEMORY) as memory:
        yield settings.model_copy(update={"pog": settings.pog.model_copy(update={"path_memory": Path(memory)})})


def answer_one(settings: Settings, store_url: str, text: str, topics: list[str], trace_path: Path | None,
               as_json: bool) -> None:
    """One question through the same run the chat's turns use, printed as `kgqa ask` shows it."""
    from agent.answer import answer_question
    from agent.factory import pog_context
    from agent.llm.base import LLMError
    from agent.llm.factory import open_llm
    from loaders.records import MalformedInput

    if not text.strip():
        raise fail("the question is empty", 2)
    with opened(settings, store_url, read_only=True) as store:
        try:
            with open_llm(settings) as llm:
                turn = answer_question(pog_context(settings, store, llm), text.strip(), [{"id": t} for t in topics],
                                       trace_id="ask", trace_path=trace_path)
        except (LLMError, MalformedInput, FileNotFoundError) as exc:
            raise fail(str(exc)) from exc
    summary = {key: turn[key] for key in
               ("answers", "paths", "llm_calls", "prompt_tokens", "completion_tokens", "seconds", "source")}
    if as_json:
        print_json(summary)
        return
    print_answer(summary)
    if trace_path is not None:
        console.print(f"trace: {trace_path}")


def print_answer(summary: dict, screen: Console = out) -> None:
    """An answer with its source, evidence paths (names and ids) and cost."""
    answers = summary["answers"]
    shown = ", ".join(answers[:10]) + (f" (+{len(answers) - 10} more)" if len(answers) > 10 else "")
    screen.print(f"[bold]Answer:[/] {escape(shown) or '(none)'}", highlight=False)
    if summary["source"]:
        screen.print(f"[dim]{SOURCES[summary['source']]}[/]")
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
