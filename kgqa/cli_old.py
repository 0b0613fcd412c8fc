"""`kgqa`: a thin command line over the library. Each command parses flags into the
settings object, calls the library, and renders the result (rich tables, or JSON)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from kg_store import GraphStore, StoreError, open_store
from kg_store.model import Neighborhood
from kgqa.settings import Settings
from loaders.load import FORMATS, LoadReport, input_bytes, load_file
from loaders.records import MalformedInput

if TYPE_CHECKING:  # the agent layer loads torch and friends: only when a command needs it
    from agent.evaluation.harness import EvalRun
    from agent.llm.base import LLMClient
    from agent.pipelines.base import Pipeline
    from loaders.questions import Gold, Question

app = typer.Typer(help="Question answering over knowledge graphs.", no_args_is_help=True, add_completion=False)
store_app = typer.Typer(help="Inspect a graph store.", no_args_is_help=True)
app.add_typer(store_app, name="store")
console = Console(stderr=True)
out = Console()

StoreOpt = Annotated[str | None, typer.Option("--store", help="Store URL; default KGQA_STORE or the embedded store.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


def fail(message: str, code: int = 1) -> typer.Exit:
    console.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code)


@contextmanager
def opened(settings: Settings, url: str | None = None, read_only: bool = False) -> Iterator[GraphStore]:
    """Open a store, turning every store error into a clear message and exit code 1."""
    target = url or settings.store_url
    try:
        store = open_store(
            target,
            schema_prefixes=settings.schema_prefixes,
            read_only=read_only,
            neo4j_user=settings.neo4j_user,
            neo4j_password=settings.neo4j_password,
            neo4j_database=settings.neo4j_database,
        )
    except StoreError as exc:
        raise fail(str(exc)) from exc
    try:
        yield store
    except StoreError as exc:  # backends name the (redacted) URL in their messages
        raise fail(str(exc)) from exc
    finally:
        store.close()


def _settings(store: str | None = None) -> Settings:
    return Settings(**({"store": store} if store else {}))


def _print_json(obj: object) -> None:
    text = json.dumps(obj, ensure_ascii=False)
    if out.is_terminal:
        out.print_json(text)  # coloured for people; plain below for pipes and tools
    else:
        print(text)


# ---- load ------------------------------------------------------------------------------
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
    settings = _settings(store)
    if fmt not in FORMATS:
        raise fail(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}", 2)
    if not path.exists():
        raise fail(f"no such file or folder: {path}", 2)
    with opened(settings) as target:
        report = _load_with_progress(target, fmt, path, strict, () if keep_schema else settings.schema_prefixes)
    if as_json:
        _print_json(report.as_dict())
    else:
        _print_load_report(report)


def _load_with_progress(store: GraphStore, fmt: str, path: Path, strict: bool, prefixes: tuple[str, ...]) -> LoadReport:
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(), TextColumn("{task.fields[facts]}"),
               TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False, disable=not console.is_terminal) as progress:
        task = progress.add_task(f"{fmt} {path.name}", total=input_bytes(fmt, path), facts="")

        last_line = time.monotonic()

        def on_batch(report: LoadReport) -> None:
            nonlocal last_line
            summary = f"{report.records:,} records, {report.malformed:,} malformed"
            progress.update(task, facts=summary)
            if not console.is_terminal and time.monotonic() - last_line >= 10:
                last_line = time.monotonic()  # logs and pipes get a line now and then instead of a bar
                console.print(f"{path.name}: {summary}, {report.seconds:.0f}s", highlight=False)

        try:
            return load_file(store, fmt, path, strict=strict, schema_prefixes=prefixes,
                             on_bytes=lambda n: progress.advance(task, n), on_batch=on_batch)
        except MalformedInput as exc:
            raise fail(f"malformed input: {exc}") from exc
        except KeyboardInterrupt:
            raise fail("interrupted: the store keeps every batch written so far; run the same command "
                       "again to finish (loading is idempotent, nothing is duplicated)", 130) from None


def _print_load_report(report: LoadReport) -> None:
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

    settings = _settings()
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


# ---- store -----------------------------------------------------------------------------
@store_app.command("stats")
def store_stats(store: StoreOpt = None, as_json: JsonOpt = False) -> None:
    """Count facts, entities and relations."""
    with opened(_settings(store), read_only=True) as target:
        stats = target.stats()
    data = {"triples": stats.triples, "entities": stats.entities, "relations": stats.relations}
    if as_json:
        _print_json(data)
    else:
        out.print(f"{target.display_url}: {stats.triples:,} triples, {stats.entities:,} entities, {stats.relations:,} relations")


@store_app.command("neighbors")
def store_neighbors(
    entity: Annotated[list[str], typer.Argument(help="Entity id(s), e.g. m.0abc or 'Tom Hanks'.")],
    store: StoreOpt = None,
    direction: Annotated[str, typer.Option(help="out, in or both.")] = "both",
    relation: Annotated[list[str] | None, typer.Option("--relation", "-r", help="Only these relations.")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many edges per entity and direction.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Neighbours of entities (one batched query)."""
    if direction not in ("out", "in", "both"):
        raise fail("--direction must be out, in or both", 2)
    with opened(_settings(store), read_only=True) as target:
        hood = target.neighbors(entity, direction=direction, relations=relation, limit_per_entity=limit)  # type: ignore[arg-type]
        names = target.names(entity)
    if as_json:
        _print_json(_neighborhood_json(hood, names))
    else:
        _print_neighborhood(hood, names)


def _neighborhood_json(hood: Neighborhood, names: dict[str, str | None]) -> list[dict]:
    return [
        {
            "id": source,
            "name": names.get(source),
            "truncated": source in hood.truncated,
            "neighbors": [
                {"relation": e.relation, "id": e.neighbor, "name": e.neighbor_label, "direction": e.direction}
                for e in edges
            ],
        }
        for source, edges in hood.edges.items()
    ]


def _print_neighborhood(hood: Neighborhood, names: dict[str, str | None]) -> None:
    for source, edges in hood.edges.items():
        title = f"{names.get(source) or source} ({source}): {len(edges)} edges" + (" (capped)" if source in hood.truncated else "")
        table = Table(title=title, title_justify="left")
        for col in ("direction", "relation", "neighbour", "id"):
            table.add_column(col)
        for e in edges:
            table.add_row("->" if e.direction == "out" else "<-", e.relation, e.neighbor_label, e.neighbor)
        out.print(table)


@store_app.command("search")
def store_search(
    text: Annotated[str, typer.Argument(help="A name to link, e.g. 'tom hanks'.")],
    store: StoreOpt = None,
    limit: Annotated[int, typer.Option(help="Candidates to return.")] = 10,
    as_json: JsonOpt = False,
) -> None:
    """Entity-linking candidates for a name: exact, normalised, prefix, substring."""
    with opened(_settings(store), read_only=True) as target:
        matches = target.search_entities(text, limit=limit)
    rows = [{"id": m.id, "name": m.name, "score": m.score, "match": m.match} for m in matches]
    if as_json:
        _print_json(rows)
        return
    table = Table("id", "name", "match", "score")
    for r in rows:
        table.add_row(r["id"], r["name"], r["match"], f"{r['score']:.2f}")
    out.print(table)


# ---- eval ------------------------------------------------------------------------------
PIPELINES = ("llm-only", "cosine-triples")


@app.command("eval")
def eval_command(
    questions: Annotated[Path, typer.Option("--questions", help="Question file (MetaQA txt, PoG JSON, RoG JSONL).")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="metaqa, pog, webqsp or rog.")],
    store: StoreOpt = None,
    pipeline: Annotated[str, typer.Option("--pipeline", help=f"One of: {', '.join(PIPELINES)}.")] = "cosine-triples",
    limit: Annotated[int | None, typer.Option(help="Only the first N (after sampling).")] = None,
    sample: Annotated[int | None, typer.Option(help="A random sample of N questions.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for --sample.")] = 0,
    concurrency: Annotated[int, typer.Option(help="Questions in flight at once.")] = 1,
    out_path: Annotated[Path | None, typer.Option("--out", help="Results JSONL (a rerun resumes it).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the LLM reply cache.")] = False,
    traces: Annotated[bool, typer.Option("--traces/--no-traces",
                                         help="Write each question's trace (prompts, replies) to OUT.traces/.")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Answer a question set against a live store and score it; results stream to JSONL."""
    from agent.evaluation.harness import EvalRun, read_finished, select
    from agent.evaluation.report import write_report
    from agent.llm.base import LLMError
    from agent.llm.factory import open_llm
    from loaders.questions import QUESTION_FORMATS, read_questions

    if fmt not in QUESTION_FORMATS or pipeline not in PIPELINES:
        raise fail(f"--format must be one of {', '.join(QUESTION_FORMATS)}; --pipeline one of {', '.join(PIPELINES)}", 2)
    settings = _settings(store)
    if no_cache:
        settings = settings.model_copy(update={"llm_cache": False})
    try:
        question_set = read_questions(questions, fmt)
    except (MalformedInput, FileNotFoundError) as exc:
        raise fail(str(exc), 2) from exc
    chosen = select(question_set, limit=limit, sample=sample, seed=seed)
    out_path = out_path or Path(f"results-{pipeline}-{questions.stem}.jsonl")
    with opened(settings, read_only=True) as target:
        try:
            with open_llm(settings) as llm:
                runner = EvalRun(_make_pipeline(pipeline, llm, target, settings), llm, target.display_url, out_path,
                                 concurrency, out_path.with_suffix(".traces") if traces else None)
                summary = _run_with_progress(runner, chosen, question_set.gold, len(read_finished(out_path)))
        except LLMError as exc:
            raise fail(str(exc)) from exc
    rows = [r for r in read_finished(out_path).values() if r["id"] in {q.id for q in chosen}]
    report = write_report(rows, summary, out_path, " ".join(["kgqa", *sys.argv[1:]]))
    console.print(f"results: {out_path}  report: {report}")
    if as_json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            out.print(f"[bold]{key}[/]: {value}")


def _make_pipeline(name: str, llm: LLMClient, store: GraphStore, settings: Settings) -> Pipeline:
    if name == "llm-only":
        from agent.pipelines.llm_only import LLMOnlyPipeline

        return LLMOnlyPipeline(llm)
    from agent.embeddings import Embedder
    from agent.pipelines.cosine_triples import CosineTriplesPipeline

    return CosineTriplesPipeline(llm, store, Embedder(settings.cache_dir / "embeddings.sqlite"))


def _run_with_progress(runner: EvalRun, chosen: list[Question], gold: dict[str, Gold], already: int) -> dict:
    scored = {"n": 0, "hits1": 0.0}
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
               TextColumn("Hits@1 {task.fields[hits1]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=not console.is_terminal) as progress:
        task = progress.add_task(runner.pipeline.name, total=len(chosen), completed=min(already, len(chosen)), hits1="-")
        last_line = time.monotonic()

        def on_row(row: dict) -> None:
            nonlocal last_line
            scored["n"] += 1
            scored["hits1"] += row["hits1"]
            running = f"{scored['hits1'] / scored['n']:.3f}"
            progress.update(task, advance=1, hits1=running)
            if not console.is_terminal and time.monotonic() - last_line >= 10:
                last_line = time.monotonic()
                console.print(f"{runner.pipeline.name}: {scored['n']} answered this run, Hits@1 {running}")

        try:
            return runner.run(chosen, gold, on_row)
        except KeyboardInterrupt:
            raise fail(f"interrupted: {scored['n']} answers are saved in {runner.out_path}; "
                       "run the same command again to continue", 130) from None


# ---- llm -------------------------------------------------------------------------------
llm_app = typer.Typer(help="The language model: what is configured, and whether it answers.", no_args_is_help=True)
app.add_typer(llm_app, name="llm")


@llm_app.command("status")
def llm_status(
    probe: Annotated[bool, typer.Option("--probe", help="Start the model if needed and send one short request.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Say which model runs (endpoint or embedded), whether its parts are in place, and,
    with --probe, whether it answers."""
    from agent.llm.base import LLMError
    from agent.llm.factory import open_llm
    from agent.llm.local import MODELS, LocalLlamaServer, LocalModelMissing, part_files

    settings = _settings()
    status: dict[str, object] = {}
    if settings.llm_base_url:
        status.update(mode="endpoint", base_url=settings.llm_base_url, model=settings.llm_model)
    else:
        model = MODELS[settings.llm]
        status.update(mode="embedded", model=model.key, runtime_installed=LocalLlamaServer.available())
        try:
            part_files(model)
            status["weights_installed"] = True
        except LocalModelMissing as exc:
            status.update(weights_installed=False, hint=str(exc))
        weights = settings.data_dir / "models" / model.filename
        status["weights_file"] = str(weights) if weights.exists() else None
    if probe:
        try:
            with open_llm(settings.model_copy(update={"llm_cache": False})) as llm:
                reply = llm.chat([{"role": "user", "content": "Reply with one word: ready"}], max_tokens=8)
            status.update(reachable=True, reply=reply.text.strip(), seconds=round(reply.seconds, 2))
        except LLMError as exc:
            status.update(reachable=False, error=str(exc))
    if as_json:
        _print_json(status)
    else:
        for key, value in status.items():
            out.print(f"[bold]{key}[/]: {value}")
    if probe and not status.get("reachable"):
        raise typer.Exit(1)


# ---- demo --------------------------------------------------------------------------------
DEMO_KG = "metaqa_kb.txt.gz"


@app.command()
def demo(
    entity: Annotated[str, typer.Argument(help="Entity whose neighbourhood to show.")] = "Tom Hanks",
    store: Annotated[str | None, typer.Option("--store", help="Store for the demo KG; default DATA_DIR/demo-store.")] = None,
) -> None:
    """Load the bundled demo KG (the MetaQA movie KB) into the embedded store and explore it."""
    settings = _settings()
    url = store or settings.demo_store_url
    with opened(settings, url) as target:
        if target.stats().triples == 0:
            with resources.as_file(resources.files("kgqa") / "data" / DEMO_KG) as kb:
                report = _load_with_progress(target, "metaqa", kb, False, settings.schema_prefixes)
            _print_load_report(report)
        stats = target.stats()
        out.print(f"[bold]demo store[/] {url}: {stats.triples:,} triples, {stats.entities:,} entities, {stats.relations} relations")
        matches = target.search_entities(entity, limit=1)
        if not matches:
            raise fail(f"no entity named {entity!r} in the demo KG")
        hood = target.neighbors([matches[0].id], limit_per_entity=15)
        _print_neighborhood(hood, {matches[0].id: matches[0].name})


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        sys.exit(130)


if __name__ == "__main__":
    main()
