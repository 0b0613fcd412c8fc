"""`kgqa trace show|html|diff`: read the reasoning traces that ask, chat and eval write."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kgqa.cli.common import JsonOpt, app, console, fail, out, print_json

if TYPE_CHECKING:
    from kgqa.eval_browser import RunPages

trace_app = typer.Typer(help="Inspect reasoning traces (JSON files written by ask --trace, chat and eval).",
                        no_args_is_help=True)
app.add_typer(trace_app, name="trace")
TraceArg = Annotated[Path, typer.Argument(help="A trace file (JSON).")]


def _load(path: Path):
    from kgqa.traces import TraceError, load_trace

    try:
        return load_trace(path)
    except TraceError as exc:
        raise fail(str(exc), 2) from exc


@contextmanager
def _reading(*paths: Path) -> Iterator[None]:
    """A trace that passed the shape check but holds a part of the wrong type (an edited
    or foreign file) is one clear error, not a traceback."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        names = " or ".join(str(p) for p in paths)
        raise fail(f"{names}: a part of the trace has a shape this kgqa does not read ({type(exc).__name__}: {exc})",
                   2) from exc


@trace_app.command("show")
def show(path: TraceArg, prompts: Annotated[bool, typer.Option("--prompts", help="Print every prompt in full.")] = False,
         ) -> None:
    """The trace as a tree: answer, cost, topic entities, each node's changes, LLM calls."""
    from kgqa.traces.tree import trace_tree

    with _reading(path):
        out.print(trace_tree(_load(path), prompts=prompts))


@trace_app.command("html")
def html(path: TraceArg,
         output: Annotated[Path, typer.Option("--out", "-o", help="The page to write.")]) -> None:
    """One self-contained page: timeline, reasoning paths as a graph, expandable prompts."""
    from kgqa.traces.page import trace_page

    with _reading(path):
        page = trace_page(_load(path))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(page, encoding="utf-8")
    console.print(f"wrote {output}")


@trace_app.command("diff")
def diff(before: TraceArg, after: TraceArg, as_json: JsonOpt = False) -> None:
    """What changed between two runs of a question: answers, cost, nodes, paths, prompts."""
    from kgqa.traces.diff import diff_lines, trace_diff

    with _reading(before, after):
        difference = trace_diff(_load(before), _load(after))
    if as_json:
        print_json(difference)
        return
    for line in diff_lines(difference):
        out.print(line, highlight=False)


def trace_pages(rows: list[dict], results: Path, folder: Path, page: Path) -> RunPages:
    """Each row's trace (as `kgqa.eval_browser.trace_file_of` finds it) rendered as
    its own page in `folder`, for the evaluation browser at `page` to link to (links are
    relative to the page's folder, so page and folder can move together). A trace that
    is missing or unreadable gets no page and its row no link."""
    import os
    from urllib.parse import quote

    from agent.traces import answer_verdict
    from kgqa.eval_browser import RunPages, trace_file_of
    from kgqa.traces import TraceError, load_trace
    from kgqa.traces.page import trace_page

    pages = RunPages()
    for row in rows:
        source = trace_file_of(row, results)
        if source is None:
            continue
        try:
            trace = load_trace(source)
            html = trace_page(trace)
            verdict = answer_verdict(trace)
        except (TraceError, KeyError, TypeError, AttributeError, ValueError):
            continue
        target = folder / source.with_suffix(".html").name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
        qid = str(row.get("id"))
        pages.links[qid] = quote(Path(os.path.relpath(target, page.parent)).as_posix())
        if verdict is not None:
            pages.verdicts[qid] = verdict
        for key in ("pipeline", "model", "store"):
            if trace.get(key) and key not in pages.info:
                pages.info[key] = str(trace[key])
    return pages
