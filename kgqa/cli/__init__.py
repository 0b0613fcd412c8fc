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


def is_text(value: str) -> bool:
    """Whether `value` is text that can be written out: no lone surrogates (what Python
    makes of bytes in a command line that are not UTF-8)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def main() -> None:
    for number, argument in enumerate(sys.argv[1:], 1):
        if not is_text(argument):  # bytes the terminal could not decode: every later step would choke on them
            shown = argument.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
            console.print(f"error: argument {number} ({shown}) is not valid UTF-8 text", highlight=False)
            sys.exit(2)
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

