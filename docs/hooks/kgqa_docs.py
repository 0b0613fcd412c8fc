"""MkDocs hook: the docs' generated parts, made at build time so they cannot go stale.

- The CLI reference (`reference/cli.md`): its placeholder is replaced by every command,
  argument and option of the live Typer app (`kgqa.cli:app`), with their help texts.
- The results pages: `kgqa docs results --check` runs before the build, and each page,
  table or row that disagrees with its results file is a warning (an error under
  `mkdocs build --strict`).
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.kgqa")
PLACEHOLDER = "<!-- cli-reference -->"


def on_pre_build(config) -> None:
    from kgqa.results_pages import check

    root = Path(config["config_file_path"]).resolve().parent
    for problem in check(root):
        log.warning("results pages: %s (render them with `kgqa docs results`)", problem)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if PLACEHOLDER not in markdown:
        return markdown
    return markdown.replace(PLACEHOLDER, cli_reference())


def cli_reference() -> str:
    """Every command, argument and option of the live app, by Typer's own Markdown writer
    (`typer kgqa.cli utils docs`), which follows the app's help texts, types and defaults."""
    import typer
    import typer.main
    from typer.cli import get_docs_for_click

    from kgqa.cli import app

    command = typer.main.get_command(app)
    text = get_docs_for_click(obj=command, ctx=typer.Context(command), name="kgqa")
    return text.split("\n", 1)[1].strip() + "\n"  # the page has its own title
