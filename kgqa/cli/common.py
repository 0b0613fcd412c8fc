"""What every command shares: the app, consoles, settings from flags, stores opened with
typed errors turned into one clear line and an exit code, JSON output, progress lines."""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, TypeVar, get_args

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from agent.pog.config import STRATEGIES, PoGConfig
from agent.settings import LOCAL_MODELS
from kg_store import GraphStore, StoreError
from kg_store.base import redact_url
from kgqa.settings import Settings
from loaders.questions import QUESTION_FORMATS

Model = TypeVar("Model", bound=BaseModel)

app = typer.Typer(help="Question answering over knowledge graphs.", no_args_is_help=True)
console = Console(stderr=True)
out = Console()



def choices(name: str, values: Iterable[str]) -> type[StrEnum]:
    """String choices as an Enum: Typer lists them in --help and refuses anything else."""
    return StrEnum(name, {value: value for value in values})


def field_choices(name: str, model: type[BaseModel], field: str) -> type[StrEnum]:
    """The choices a settings field's Literal type allows."""
    return choices(name, get_args(model.model_fields[field].annotation))


Strategy = choices("Strategy", STRATEGIES)
Preset = field_choices("Preset", PoGConfig, "preset")
LocalModelKey = choices("LocalModelKey", LOCAL_MODELS)
QuestionFormat = choices("QuestionFormat", QUESTION_FORMATS)

StoreOpt = Annotated[str | None, typer.Option("--store", help="Store URL; default KGQA_STORE or the embedded store.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
# The PoG agent's flags, shared by `ask`, `eval` and `demo`.
POG = "The PoG agent"
PresetOpt = Annotated[Preset | None, typer.Option(
    help="small: the routes that win with a small local model; paper: PoG as the paper describes it, for capable "
    "models (7B and up). The other PoG flags and KGQA_POG__* settings override it.", rich_help_panel=POG)]
StrategyOpt = Annotated[Strategy | None, typer.Option(help="Pruning: which LLM steps follow the fuzzy ranking.",
                                                      rich_help_panel=POG)]
WidthOpt = Annotated[int | None, typer.Option(help="W, paths kept for the answer.", rich_help_panel=POG)]
DepthOpt = Annotated[int | None, typer.Option(help="D_max, the deepest exploration in hops.", rich_help_panel=POG)]
LLMOpt = Annotated[LocalModelKey | None, typer.Option("--llm", help="Embedded model when no endpoint is set.")]
MemoryOpt = Annotated[Path | None, typer.Option(
    "--path-memory", help="A path-memory file (kgqa memory build or synthesize).", rich_help_panel=POG)]


def fail(message: str, code: int = 1) -> typer.Exit:
    # One line however long: a path or URL cut at the 80th column of a log (stderr is not a
    # terminal there) can be neither copied nor grepped; a terminal wraps it by itself.
    console.print(f"[bold red]error:[/] {escape(redact_url(message))}", soft_wrap=True)
    return typer.Exit(code)


def command_line() -> str:
    """This command as typed, passwords in URLs hidden: for reports."""
    return redact_url(" ".join(["kgqa", *(shlex.quote(a) for a in sys.argv[1:])]))


def settings_from(store: str | None = None, llm: str | None = None) -> Settings:
    """Settings from defaults, KGQA_* variables and .env, with the given flags on top."""
    flags = {k: v for k, v in {"store": store, "llm": llm}.items() if v}
    try:
        return Settings(**flags)
    except ValidationError as exc:
        error = exc.errors()[0]
        raise fail(f"invalid setting {'.'.join(map(str, error['loc']))}: {error['msg']}", 2) from exc


def with_pog_flags(settings: Settings, strategy: str | None = None, width: int | None = None,
                   depth: int | None = None, path_memory: Path | None = None, preset: str | None = None) -> Settings:
    """The settings with the PoG flags that were given laid over them (validated)."""
    flags = {"strategy": strategy, "width": width, "max_depth": depth, "path_memory": path_memory, "preset": preset}
    pog = _overlay(settings.pog, flags, "PoG")
    if pog is None:
        return settings
    if pog.path_memory is not None and not pog.path_memory.is_file():
        raise fail(f"no such path-memory file: {pog.path_memory}", 2)
    return settings.model_copy(update={"pog": pog})


def with_triples_flags(settings: Settings, flags: dict[str, object]) -> Settings:
    """The settings with the triple pipeline's flags that were given laid over them;
    `flags` may hold `pooling.<field>` keys for the path-pooling node."""
    triples = _overlay(settings.triples, flags, "triples")
    if triples is None:
        return settings
    if triples.scorer_model is not None and not triples.scorer_model.is_file():
        raise fail(f"no such scorer model: {triples.scorer_model}", 2)
    return settings.model_copy(update={"triples": triples})


def with_node_flags(settings: Settings, pooling: dict[str, object] | None = None,
                    fi: dict[str, object] | None = None) -> Settings:
    """The optional nodes' flags laid over both agents' settings (PoG and the triple
    pipeline read the same node configs): `pooling` PoolingConfig fields, `fi` GraphRAGFIConfig fields."""
    flags = {**{f"pooling.{k}": v for k, v in (pooling or {}).items()}, **{f"graphrag_fi.{k}": v for k, v in (fi or {}).items()}}
    pog = _overlay(settings.pog, flags, "PoG")
    settings = settings if pog is None else settings.model_copy(update={"pog": pog})
    return with_triples_flags(settings, flags)


def _overlay(config: Model, flags: dict[str, object], what: str) -> Model | None:
    """`config` with the flags that were given (not None; `a.b` keys reach nested models)
    laid over it and validated; None when no flag was given."""
    given = {k: v for k, v in flags.items() if v is not None}
    if not given:
        return None
    values = config.model_dump(exclude_unset=True)  # unset knobs stay unset: a preset given now still fills them
    for key, value in given.items():
        *outer, last = key.split(".")
        target = values
        for part in outer:
            target = target.setdefault(part, {})
        target[last] = value
    try:
        return type(config).model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        raise fail(f"invalid {what} option {'.'.join(map(str, error['loc']))}: {error['msg']}", 2) from exc


@contextmanager
def opened(settings: Settings, url: str | None = None, read_only: bool = False) -> Iterator[GraphStore]:
    """Open a store, turning every store error into a clear message and exit code 1."""
    from agent.assembly.context import open_settings_store

    target = url or settings.store_url
    try:
        store = open_settings_store(settings, target, read_only=read_only)
    except StoreError as exc:
        raise fail(str(exc)) from exc
    try:
        yield store
    except StoreError as exc:  # backends name the (redacted) URL in their messages
        raise fail(str(exc)) from exc
    finally:
        store.close()


def print_json(obj: object) -> None:
    text = json.dumps(obj, ensure_ascii=False)
    if out.is_terminal:
        out.print_json(text)  # coloured for people; plain below for pipes and tools
    else:
        print(text, flush=True)  # read as soon as it is written, not when we exit


class Bar:
    """One task's progress: a live bar on a terminal; in logs and pipes, where a bar cannot
    draw, a line every `every` seconds."""

    def __init__(self, progress: Progress, task: TaskID, every: float) -> None:
        self._progress, self._task, self._every, self._last = progress, task, every, time.monotonic()

    def update(self, *, advance: float = 0, completed: float | None = None, total: float | None = None,
               description: str | None = None, note: str | None = None) -> None:
        given = {"completed": completed, "total": total, "description": description, "note": note}
        self._progress.update(self._task, advance=advance, **{k: v for k, v in given.items() if v is not None})
        if not console.is_terminal and time.monotonic() - self._last >= self._every:
            self._last = time.monotonic()
            task = self._progress.tasks[self._task]
            done = f"{task.completed:,.0f}" + (f"/{task.total:,.0f}" if task.total is not None else "")
            console.print(f"{task.description}: {done} {task.fields['note']}".rstrip(), highlight=False)


@contextmanager
def progress_bar(description: str, total: float | None = None, *, in_bytes: bool = False,
                 every: float = 10.0) -> Iterator[Bar]:
    """The progress display of every long command (`in_bytes`: the total is a file size)."""
    columns = (TextColumn("[bold]{task.description}"), BarColumn(),
               DownloadColumn() if in_bytes else TextColumn("{task.completed:,.0f}/{task.total}"),
               TextColumn("{task.fields[note]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=not console.is_terminal) as progress:
        yield Bar(progress, progress.add_task(description, total=total, note=""), every)
