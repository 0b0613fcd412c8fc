"""`kgqa`: a thin command line over the library. Each command parses flags into the
settings object, calls the library, and renders the result (rich tables, or JSON).
One module per command group; importing them registers their commands on `app`."""

from __future__ import annotations

import sys

from kg_store import KGQAError
from kgqa.cli import (  # noqa: F401 - registers the commands
    ask,
    chat,
    data,
    docs,
    evaluate,
    llm,
    memory,
    serve,
    store,
    trace,
    train,
)
from kgqa.cli.common import app, console, fail

__all__ = ["app", "main"]


def main() -> None:
    try:
        app()
    except KGQAError as exc:  # every error kgqa raises on purpose: its message, not a traceback
        sys.exit(fail(str(exc)).exit_code)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        sys.exit(130)
    except SystemExit as exc:
        if _interrupted(exc):  # Typer turns Ctrl-C into a silent exit 130
            console.print("[yellow]interrupted[/]")
        raise


def _interrupted(exc: SystemExit) -> bool:
    """Typer's exit for Ctrl-C: `sys.exit` while handling its `Exit(130)` raised from a
    KeyboardInterrupt. (A command that reports its own interruption raises its Exit itself.)"""
    handled = exc.__context__
    return handled is not None and isinstance(handled.__cause__, KeyboardInterrupt)


if __name__ == "__main__":
    main()
