"""`kgqa load` and `kgqa export`: knowledge graphs into a store, or into bulk-loader files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from kg_store import GraphStore
from kgqa.cli.common import JsonOpt, StoreOpt, app, choices, fail, opened, out, print_json, progress_bar, settings_from
from loaders.bulk import TARGETS
from loaders.load import FORMATS, LoadReport, input_bytes, load_file
from loaders.rdf import RDF_FORMATS, RdfOptions, rdf_format_of
from loaders.records import MalformedInput

KGFormat = choices("KGFormat", FORMATS)
BulkTarget = choices("BulkTarget", TARGETS)
RdfFormat = choices("RdfFormat", RDF_FORMATS)
RDF = "RDF (-f rdf)"


@app.command()
def load(
    path: Annotated[Path, typer.Argument(help="File (or FB15k-237 folder) to load.")],
    fmt: Annotated[KGFormat, typer.Option("--format", "-f", help="The file's format.")],
    store: StoreOpt = None,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on the first malformed line.")] = False,
    keep_schema: Annotated[bool, typer.Option("--keep-schema", help="Also load schema relations.")] = False,
    rdf_format: Annotated[RdfFormat | None, typer.Option(
        "--rdf-format", help="The RDF syntax; default: from the suffix (.ttl .nt .nq .trig .rdf/.owl .jsonld, "
        "optionally .gz).", rich_help_panel=RDF)] = None,
    label_predicates: Annotated[list[str] | None, typer.Option(
        "--label-predicate", help="A predicate whose literals name entities (IRI or rdfs:, skos:, schema:, foaf:, "
        "dcterms:, fb: ...); repeat for several; replaces KGQA_LABEL_PREDICATES.", rich_help_panel=RDF)] = None,
    label_language: Annotated[str | None, typer.Option(
        "--label-language", help="Preferred language of names and literals ('*': any); default KGQA_LABEL_LANGUAGE "
        "or en.", rich_help_panel=RDF)] = None,
    base_iri: Annotated[str | None, typer.Option(
        "--base-iri", help="Base for the file's relative IRIs (without it they are malformed).",
        rich_help_panel=RDF)] = None,
    as_json: JsonOpt = False,
) -> None:
    """Load a KG file into a store (streaming; re-running it adds nothing twice)."""
    settings = settings_from(store)
    if not path.exists():
        raise fail(f"no such file or folder: {path}", 2)
    rdf = rdf_options(fmt.value, rdf_format, label_predicates, label_language, base_iri,
                      settings.label_predicates, settings.label_language)
    with opened(settings) as target:
        report = load_with_progress(target, fmt.value, path, strict, () if keep_schema else settings.schema_prefixes,
                                    rdf)
    if report.malformed and not report.records:
        line, reason = report.malformed_examples[0]
        what, syntax = ("statements", f" ({rdf_format_of(path, rdf.rdf_format)})") if rdf else ("lines", "")
        raise fail(f"none of the {report.malformed:,} {what} of {path} reads as {fmt}{syntax} (line {line}: {reason}); "
                   f"the format looks wrong: is it one of {', '.join(FORMATS)}?")
    if as_json:
        print_json(report.as_dict())
    else:
        print_load_report(report)


def rdf_options(fmt: str, rdf_format: str | None, label_predicates: list[str] | None, label_language: str | None,
                base_iri: str | None, default_predicates: tuple[str, ...], default_language: str) -> RdfOptions | None:
    """How to read an RDF file, from the flags over the settings; None for other formats."""
    if fmt != "rdf":
        given = [flag for flag, value in (("--rdf-format", rdf_format), ("--label-predicate", label_predicates),
                                          ("--label-language", label_language), ("--base-iri", base_iri)) if value]
        if given:
            raise fail(f"{', '.join(given)} applies to -f rdf only", 2)
        return None
    try:
        return RdfOptions(
            rdf_format=str(rdf_format) if rdf_format else None,
            label_predicates=tuple(label_predicates) if label_predicates else default_predicates,
            label_language=default_language if label_language is None else label_language,
            base_iri=base_iri,
        )
    except ValueError as exc:
        raise fail(f"invalid RDF option: {exc}", 2) from exc


def load_with_progress(store: GraphStore, fmt: str, path: Path, strict: bool, prefixes: tuple[str, ...],
                       rdf: RdfOptions | None = None) -> LoadReport:
    try:
        total = input_bytes(fmt, path)
    except MalformedInput as exc:  # a folder without the format's files, say
        raise fail(f"malformed input: {exc}", 2) from exc
    written: list[LoadReport] = []
    with progress_bar(f"{fmt} {path.name}", total, in_bytes=True) as bar:
        def on_batch(report: LoadReport) -> None:
            written[:] = [report]
            bar.update(note=f"{report.records:,} records, {report.malformed:,} malformed")

        try:
            return load_file(store, fmt, path, strict=strict, schema_prefixes=prefixes,
                             on_bytes=lambda n: bar.update(advance=n), on_batch=on_batch, rdf=rdf,
                             on_settle=lambda: bar.update(note="settling: compacting, building the indexes"))
        except MalformedInput as exc:
            raise fail(f"malformed input: {exc}") from exc
        except OSError as exc:  # the store's disk is full, or gone read-only
            facts = f"{written[0].triples:,} facts and {written[0].names:,} names" if written else "no batch"
            raise fail(f"{store.display_url}: writing failed ({exc.strerror or exc}) after {facts} of {path}; "
                       "the store keeps every batch written before. Free space and run the same command again "
                       "(loading is idempotent, nothing is duplicated)") from exc
        except KeyboardInterrupt:
            raise fail("interrupted: the store keeps every batch written so far; run the same command "
                       "again to finish (loading is idempotent, nothing is duplicated)", 130) from None


def print_load_report(report: LoadReport, screen: Console = out) -> None:
    rate = f"{report.records / report.seconds:,.0f}/s" if report.seconds else "-"
    screen.print(f"[green]loaded[/] {report.path} into {report.store}: {report.triples:,} facts, {report.names:,} names, "
                 f"{report.attributes:,} attributes in {report.seconds:.1f}s ({rate})")
    for reason, n in sorted(report.skipped.items()):
        screen.print(f"  skipped {n:,}: {reason}")
    if report.malformed:
        screen.print(f"  [yellow]malformed lines skipped: {report.malformed:,}[/]")
        for line_no, reason in report.malformed_examples:
            screen.print(f"    line {line_no}: {reason}")


@app.command()
def export(
    path: Annotated[Path, typer.Argument(help="File (or FB15k-237 folder) to convert.")],
    fmt: Annotated[KGFormat, typer.Option("--format", "-f", help="The file's format.")],
    target: Annotated[BulkTarget, typer.Option("--target", "-t", help="virtuoso: ld_dir N-Triples; neo4j-admin: CSV.")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Folder for the generated files.")],
    strict: Annotated[bool, typer.Option("--strict", help="Fail on the first malformed line.")] = False,
    keep_schema: Annotated[bool, typer.Option("--keep-schema", help="Also keep schema relations.")] = False,
) -> None:
    """Write input files for a server's own bulk loader (for full Freebase), and print the command."""
    from loaders.bulk import export_bulk

    settings = settings_from()
    if not path.exists():
        raise fail(f"no such file or folder: {path}", 2)
    with progress_bar(f"{fmt} -> {target}", input_bytes(fmt, path), in_bytes=True) as bar:
        try:
            report = export_bulk(fmt.value, path, out_dir, target.value, () if keep_schema else settings.schema_prefixes,
                                 strict=strict, on_bytes=lambda n: bar.update(advance=n))
        except MalformedInput as exc:
            raise fail(f"malformed input: {exc}") from exc
    out.print(f"[green]wrote[/] {len(report.files)} file(s) to {report.out_dir}: {report.triples:,} facts, "
              f"{report.names:,} names, {report.attributes:,} attributes; {report.malformed:,} malformed, "
              f"{report.skipped:,} skipped")
    out.print("load them with:")
    for command in report.commands:
        out.print(f"  {command}", markup=False, highlight=False)
