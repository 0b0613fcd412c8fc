"""`kgqa load` and `kgqa export`: knowledge graphs into a store, or into bulk-loader files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from kg_store import GraphStore
from kgqa.cli.common import JsonOpt, ProgressLines, StoreOpt, app, console, fail, opened, out, print_json, settings_from
from loaders.load import FORMATS, LoadReport, input_bytes, load_file
from loaders.records import MalformedInput


@app.command()
def load(
    path: Annotated[Path, typer.Argument(help="File (or FB15k-237 folder) to load.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help=f"One of: {', '.join(FORMATS)}.")],
    store: StoreOpt = None,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on the first malformed line.")] = False,
    keep_schema: Annotated[bool, typer.Option("--keep-schema", help="Also load schema relations.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Load a KG file into a store (streaming; re-running it adds nothing twice)."""
    settings = settings_from(store)
    if fmt not in FORMATS:
        raise fail(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}", 2)
    if not path.exists():
        raise fail(f"no such file or folder: {path}", 2)
    with opened(settings) as target:
        report = load_with_progress(target, fmt, path, strict, () if keep_schema else settings.schema_prefixes)
    if report.malformed and not report.records:
        line, reason = report.malformed_examples[0]
        raise fail(f"none of the {report.malformed:,} lines of {path} reads as {fmt} (line {line}: {reason}); "
                   f"the format looks wrong: is it one of {', '.join(FORMATS)}?")
    if as_json:
        print_json(report.as_dict())
    else:
        print_load_report(report)


def load_with_progress(store: GraphStore, fmt: str, path: Path, strict: bool, prefixes: tuple[str, ...]) -> LoadReport:
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(), TextColumn("{task.fields[facts]}"),
               TimeElapsedColumn(), TimeRemainingColumn())
    try:
        total = input_bytes(fmt, path)
    except MalformedInput as exc:  # a folder without the format's files, say
        raise fail(f"malformed input: {exc}", 2) from exc
    with Progress(*columns, console=console, transient=False, disable=not console.is_terminal) as progress:
        task = progress.add_task(f"{fmt} {path.name}", total=total, facts="")

        lines = ProgressLines()

        def on_batch(report: LoadReport) -> None:
            summary = f"{report.records:,} records, {report.malformed:,} malformed"
            progress.update(task, facts=summary)
            lines(lambda: f"{path.name}: {summary}, {report.seconds:.0f}s")

        try:
            return load_file(store, fmt, path, strict=strict, schema_prefixes=prefixes,
                             on_bytes=lambda n: progress.advance(task, n), on_batch=on_batch)
        except MalformedInput as exc:
            raise fail(f"malformed input: {exc}") from exc
        except KeyboardInterrupt:
            raise fail("interrupted: the store keeps every batch written so far; run the same command "
                       "again to finish (loading is idempotent, nothing is duplicated)", 130) from None


def print_load_report(report: LoadReport) -> None:
    rate = f"{report.records / report.seconds:,.0f}/s" if report.seconds else "-"
    out.print(f"[green]loaded[/] {report.path} into {report.store}: {report.triples:,} facts, {report.names:,} names, "
              f"{report.attributes:,} attributes in {report.seconds:.1f}s ({rate})")
    for reason, n in sorted(report.skipped.items()):
        out.print(f"  skipped {n:,}: {reason}")
    if report.malformed:
        out.print(f"  [yellow]malformed lines skipped: {report.malformed:,}[/]")
        for line_no, reason in report.malformed_examples:
            out.print(f"    line {line_no}: {reason}")


@app.command()
def export(
    path: Annotated[Path, typer.Argument(help="File (or FB15k-237 folder) to convert.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help=f"One of: {', '.join(FORMATS)}.")],
    target: Annotated[str, typer.Option("--target", "-t", help="virtuoso (ld_dir N-Triples) or neo4j-admin (CSV).")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Folder for the generated files.")],
    strict: Annotated[bool, typer.Option("--strict", help="Fail on the first malformed line.")] = False,
    keep_schema: Annotated[bool, typer.Option("--keep-schema", help="Also keep schema relations.")] = False,
) -> None:
    """Write input files for a server's own bulk loader (for full Freebase), and print the command."""
    from loaders.bulk import TARGETS, export_bulk

    settings = settings_from()
    if fmt not in FORMATS or target not in TARGETS:
        raise fail(f"--format must be one of {', '.join(FORMATS)}; --target one of {', '.join(TARGETS)}", 2)
    if not path.exists():
        raise fail(f"no such file or folder: {path}", 2)
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=console, disable=not console.is_terminal) as progress:
        task = progress.add_task(f"{fmt} -> {target}", total=input_bytes(fmt, path))
        try:
            report = export_bulk(fmt, path, out_dir, target, () if keep_schema else settings.schema_prefixes,
                                 strict=strict, on_bytes=lambda n: progress.advance(task, n))
        except MalformedInput as exc:
            raise fail(f"malformed input: {exc}") from exc
    out.print(f"[green]wrote[/] {len(report.files)} file(s) to {report.out_dir}: {report.triples:,} facts, "
              f"{report.names:,} names, {report.attributes:,} attributes; {report.malformed:,} malformed, "
              f"{report.skipped:,} skipped")
    out.print("load them with:")
    for command in report.commands:
        out.print(f"  {command}", markup=False, highlight=False)
