"""`kgqa docs`: the documentation's generated parts."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from kgqa.cli.common import app, console, fail, out

docs_app = typer.Typer(help="The documentation's generated parts.", no_args_is_help=True)
app.add_typer(docs_app, name="docs")


@docs_app.command("results")
def results_command(
    check: Annotated[bool, typer.Option(
        "--check", help="Write nothing; exit 1 naming each page, table and row that differs from its files.")] = False,
    root: Annotated[Path, typer.Option(help="The repository: docs/ and the results files' paths are under it.")] = Path("."),
    spec: Annotated[Path | None, typer.Option(
        help="The spec of the results tables, relative to ROOT. [default: docs/results/tables.toml]")] = None,
) -> None:
    """Render the results pages (docs/results/*.md, docs/without-labels.md) from the files in
    results/, every row re-scored under today's metrics, as the spec lists them."""
    from kgqa.results_pages import SpecError, write
    from kgqa.results_pages import check as check_pages

    try:
        if check:
            problems = check_pages(root, spec)
            changed: list[str] = []
        else:
            changed, problems = write(root, spec)
    except SpecError as exc:
        raise fail(str(exc), 2) from exc
    if problems:
        for problem in problems:
            console.print(f"[bold red]error:[/] {escape(str(problem))}", highlight=False)
        raise typer.Exit(1)
    if check:
        out.print("the results pages agree with their files")
    else:
        out.print(f"rewrote {', '.join(changed)}" if changed else "the results pages were already up to date")
