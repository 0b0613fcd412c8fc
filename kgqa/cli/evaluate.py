"""`kgqa eval`: answer a question set against a live store, score it, report it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from agent.assembly.pipelines import PIPELINES
from agent.optional_nodes.config import GraphRAGFIConfig, PoolingConfig
from agent.triples.config import TriplesConfig
from kg_store import InputError, StoreError
from kgqa.cli.common import (
    DepthOpt,
    JsonOpt,
    LLMOpt,
    MemoryOpt,
    PresetOpt,
    QuestionFormat,
    StoreOpt,
    StrategyOpt,
    WidthOpt,
    app,
    choices,
    command_line,
    console,
    fail,
    field_choices,
    out,
    progress_bar,
    settings_from,
    with_node_flags,
    with_pog_flags,
    with_triples_flags,
)
from loaders.questions import SPLIT_PARTS
from loaders.records import MalformedInput

PoolingSearch = field_choices("PoolingSearch", PoolingConfig, "search")
PoolingOrder = field_choices("PoolingOrder", PoolingConfig, "order")
FICoarse = field_choices("FICoarse", GraphRAGFIConfig, "coarse")
Scorer = field_choices("Scorer", TriplesConfig, "scorer")
Pipeline = choices("Pipeline", PIPELINES)
SplitPart = choices("SplitPart", SPLIT_PARTS)
DEFAULT_PIPELINE = Pipeline("cosine-triples")

SELECTION, TRIPLES, NODES = "Which questions", "The triple pipeline", "Optional nodes (pog and triples)"


@app.command("eval")
def eval_command(
    questions: Annotated[Path, typer.Option("--questions", help="Question file (MetaQA txt, PoG JSON, RoG JSONL).")],
    fmt: Annotated[QuestionFormat, typer.Option("--format", "-f", help="The question file's format.")],
    store: StoreOpt = None,
    pipeline: Annotated[Pipeline, typer.Option("--pipeline", help="What answers.")] = DEFAULT_PIPELINE,
    limit: Annotated[int | None, typer.Option(help="Only the first N (after sampling).", rich_help_panel=SELECTION)]
    = None,
    sample: Annotated[int | None, typer.Option(help="A random sample of N questions.", rich_help_panel=SELECTION)]
    = None,
    seed: Annotated[int, typer.Option(help="Seed for --sample.", rich_help_panel=SELECTION)] = 0,
    shard: Annotated[str | None, typer.Option(
        help="I/N: only every N-th question of the selection, from the I-th; N runs (own --out each) share the work.",
        rich_help_panel=SELECTION)] = None,
    part: Annotated[SplitPart | None, typer.Option(help=(
        "Only the development split's tuning part (read its traces, iterate on it) or report part (the "
        "figures you report): a fixed hash of each question's template (docs/evaluation.md)."),
        rich_help_panel=SELECTION)] = None,
    link: Annotated[bool, typer.Option("--link", help=(
        "Withhold the questions' topic entities: the pipeline links them from the question's text, as for a "
        "user's question."), rich_help_panel=SELECTION)] = False,
    concurrency: Annotated[int, typer.Option(min=1, help="Questions in flight at once.")] = 1,
    llm_servers: Annotated[int | None, typer.Option(min=1, max=16, help=(
        "Copies of the embedded model to start (KGQA_LLM_SERVERS): each answers one call at a time "
        "(docs/benchmarks.md: when this pays)."))] = None,
    llm: LLMOpt = None,
    out_path: Annotated[Path | None, typer.Option("--out", "-o", help="Results JSONL (a rerun resumes it).")] = None,
    force: Annotated[bool, typer.Option("--force", help=(
        "Replace OUT when it holds results of another run (another pipeline, model, preset, store, memory or "
        "question file); without it such a rerun is refused."))] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the LLM reply cache.")] = False,
    preset: PresetOpt = None,
    strategy: StrategyOpt = None,
    width: WidthOpt = None,
    depth: DepthOpt = None,
    path_memory: MemoryOpt = None,
    scorer: Annotated[Scorer | None, typer.Option(help="Ranks the triples.", rich_help_panel=TRIPLES)] = None,
    scorer_model: Annotated[Path | None, typer.Option(help="A KG-Scout checkpoint.", rich_help_panel=TRIPLES)] = None,
    top_k: Annotated[int | None, typer.Option(help="Triples shown to the model.", rich_help_panel=TRIPLES)] = None,
    reselect_from: Annotated[int | None, typer.Option(help="Pool the scorer's top N, keep top-k.",
                                                      rich_help_panel=TRIPLES)] = None,
    pooling: Annotated[bool | None, typer.Option("--pooling/--no-pooling", help="Path pooling.",
                                                 rich_help_panel=NODES)] = None,
    pooling_search: Annotated[PoolingSearch | None, typer.Option(help="Pooling kernels.", rich_help_panel=NODES)] = None,
    pooling_order: Annotated[PoolingOrder | None, typer.Option(help="Pooled order: recency (best last) or middle.",
                                                               rich_help_panel=NODES)] = None,
    fi_filter: Annotated[bool | None, typer.Option("--fi-filter/--no-fi-filter",
                                                   help="GraphRAG-FI coarse and fine filter.", rich_help_panel=NODES)]
    = None,
    fi_integrate: Annotated[bool | None, typer.Option("--fi-integrate/--no-fi-integrate",
                                                      help="GraphRAG-FI answer integration.", rich_help_panel=NODES)]
    = None,
    fi_coarse: Annotated[FICoarse | None, typer.Option(help="GraphRAG-FI coarse filter.", rich_help_panel=NODES)]
    = None,
    fi_attention_tokens: Annotated[int | None, typer.Option(
        help="GraphRAG-FI attention: score only the leading paths that fit this many tokens (default: all).",
        rich_help_panel=NODES)] = None,
    traces: Annotated[bool, typer.Option("--traces/--no-traces",
                                         help="Write each question's trace (prompts, replies) to OUT.traces/.")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Answer a question set against a live store and score it; results stream to JSONL."""
    from agent.evaluation.harness import ResultsInUse
    from agent.evaluation.report import write_report
    from agent.evaluation.run import EvalPlan, parse_shard, run_evaluation, selected_questions
    from agent.llm.base import LLMError
    from kgqa.eval_browser import default_page

    settings = with_pog_flags(settings_from(store, llm), strategy, width, depth, path_memory, preset)
    settings = with_triples_flags(settings, {"scorer": scorer, "scorer_model": scorer_model, "top_k": top_k,
                                             "pooling.reselect_from": reselect_from})
    settings = with_node_flags(settings, pooling={"enabled": pooling, "search": pooling_search, "order": pooling_order},
                               fi={"filter": fi_filter, "integrate": fi_integrate, "coarse": fi_coarse,
                                   "attention_tokens": fi_attention_tokens})
    if no_cache:
        settings = settings.model_copy(update={"llm_cache": False})
    if llm_servers is not None:
        settings = settings.model_copy(update={"llm_servers": llm_servers})
    if concurrency > settings.llm_servers and not settings.llm_base_url:
        # One embedded server answers one call at a time: more questions in flight only
        # queue there, and their own work takes cores from it (measured slower, docs/benchmarks.md).
        copies = "1 copy" if settings.llm_servers == 1 else f"{settings.llm_servers} copies"
        console.print(f"note: --concurrency {concurrency} with {copies} of the embedded model: calls queue "
                      f"there; add --llm-servers {concurrency} to run them at once")
    out_path = out_path or Path(f"results-{pipeline}-{questions.stem}.jsonl")
    if out_path.suffix == ".gz":  # results are appended line by line; a gzipped copy is read only by `compare`
        raise fail(f"--out must be plain JSONL, not {out_path}: gunzip -k it and pass the .jsonl", 2)
    if out_path.is_dir():
        raise fail(f"--out is a folder: {out_path}; give a file, e.g. {out_path / 'results.jsonl'}", 2)
    try:
        plan = EvalPlan(questions, fmt, pipeline, out_path, limit, sample, seed,
                        parse_shard(shard) if shard else None, concurrency, traces, link,
                        part.value if part else None, force)
        selection = selected_questions(plan)  # a malformed file fails here, before any store or model starts
    except InputError as exc:
        raise fail(str(exc), 2) from exc
    with progress_bar(pipeline) as bar:
        scored = {"n": 0, "hits1": 0.0}

        def on_row(row: dict) -> None:
            scored["n"] += 1
            scored["hits1"] += row["hits1"]
            bar.update(advance=1, note=f"Hits@1 {scored['hits1'] / scored['n']:.3f} this run")

        try:
            outcome = run_evaluation(settings, plan, selection, lambda name, done, total: bar.update(
                description=name, completed=done, total=total), on_row)
        except (LLMError, MalformedInput) as exc:
            raise fail(f"{exc}\nthe answers so far are saved in {out_path}; run the same command again to "
                       "continue") from exc
        except (ResultsInUse, StoreError) as exc:
            raise fail(str(exc)) from exc
        except InputError as exc:  # OUT is no results file, or another run's
            raise fail(str(exc), 2) from exc
        except KeyboardInterrupt:
            raise fail(f"interrupted: {scored['n']} answers are saved in {out_path}; "
                       "run the same command again to continue", 130) from None
    report = write_report(outcome.rows, outcome.summary, out_path, command_line())
    page = _write_run_page(outcome.rows, out_path, default_page(out_path), summary=outcome.summary,
                           command=command_line())
    console.print(f"results: {out_path}  report: {report}  page: {page}")
    if as_json:
        print(json.dumps(outcome.summary))
    else:
        for key, value in outcome.summary.items():
            out.print(f"[bold]{key}[/]: {value}")


@app.command("compare")
def compare_command(
    base: Annotated[Path, typer.Argument(help="Results JSONL (or .jsonl.gz) to compare against.")],
    runs: Annotated[list[Path], typer.Argument(help="Results of other runs of the same questions.")],
    as_json: JsonOpt = False,
    html: Annotated[bool, typer.Option("--html", help=(
        "Also write a page per run, side by side with BASE: won, lost, changed paths, each question's traces "
        "(RUN.vs-BASE.html beside RUN unless --out)."))] = False,
    out_path: Annotated[Path | None, typer.Option("--out", "-o", help="The page to write (one RUN; implies --html).")]
    = None,
) -> None:
    """Hits@1 of each run against BASE on the questions both answered, and the questions lost and won."""
    from agent.evaluation.compare import compare
    from kgqa.eval_browser import compare_page, default_page

    if out_path is not None and len(runs) > 1:
        raise fail("--out names one page: give one RUN with it, or leave it out for a page beside each run", 2)
    base_rows = _rows_of(base)
    for run in runs:
        run_rows = _rows_of(run)
        result = {"run": str(run), **compare(base_rows, run_rows)}
        if as_json:
            print(json.dumps(result))
        else:
            out.print(f"[bold]{run}[/]: Hits@1 {result['hits1']:.3f} over {result['n']}; on the {result['shared']} "
                      f"shared with the base {result['hits1_shared']:.3f} against {result['base_hits1_shared']:.3f}, "
                      f"{result['lost']} lost, {result['won']} won, {result['changed_paths']} changed paths; "
                      f"{result['llm_calls_avg']:.2f} LLM calls, "
                      f"{result['prompt_tokens_avg']:.0f} prompt tokens a question, {result['errors']} errors")
        if html or out_path is not None:
            page = out_path or default_page(run, base)
            folder = _pages_folder(page)
            shared = [row for qid, row in run_rows.items() if qid in base_rows]
            text = compare_page(base_rows, run_rows, base_name=str(base), run_name=str(run),
                                base_pages=_trace_pages([base_rows[r["id"]] for r in shared], base, folder / "base",
                                                        page),
                                run_pages=_trace_pages(shared, run, folder / "run", page))
            _write_page(page, text)
            console.print(f"wrote {page}")


@app.command("report")
def report_command(
    results: Annotated[Path, typer.Argument(help="Results JSONL (or .jsonl.gz) as `kgqa eval --out` writes it.")],
    out_path: Annotated[Path | None, typer.Option("--out", "-o", help="The page to write (default: RUN.html beside "
                                                                     "the results).")] = None,
) -> None:
    """One self-contained page for a run: summary, accuracy by hop or type, time and cost
    distributions, and every question (prediction, gold, right or wrong) linking its trace page."""
    from kgqa.eval_browser import default_page

    rows = list(_rows_of(results).values())
    console.print(f"wrote {_write_run_page(rows, results, out_path or default_page(results))}")


def _pages_folder(page: Path) -> Path:
    """Where a page's trace pages go: `NAME.pages/` beside `NAME.html`."""
    return page.with_name(page.stem + ".pages")


def _trace_pages(rows: list[dict], results: Path, folder: Path, page: Path):
    from kgqa.cli.trace import trace_pages

    try:
        return trace_pages(rows, results, folder, page)
    except OSError as exc:
        raise fail(f"cannot write the trace pages in {folder}: {exc.strerror or exc}") from exc


def _write_run_page(rows: list[dict], results: Path, page: Path, *, summary: dict | None = None,
                    command: str | None = None) -> Path:
    """The run's page, and its trace pages in `NAME.pages/` beside it."""
    from kgqa.eval_browser import run_page

    pages = _trace_pages(rows, results, _pages_folder(page), page)
    _write_page(page, run_page(rows, name=str(results), pages=pages, summary=summary, command=command))
    return page


def _write_page(page: Path, text: str) -> None:
    try:
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {page}: {exc.strerror or exc}") from exc


@app.command("table")
def table_command(
    runs: Annotated[list[str], typer.Argument(help="Results files (JSONL or .jsonl.gz), each as LABEL=PATH or PATH.")],
) -> None:
    """A Markdown table of results files, every row re-scored under today's metrics: how
    the docs' figures are made from the files in results/."""
    from agent.evaluation.report import TABLE_HEADER, table_row

    lines = [TABLE_HEADER]
    for run in runs:
        label, _, path = run.rpartition("=") if "=" in run else (Path(run).name, "", run)
        lines.append(table_row(label, list(_rows_of(Path(path)).values())))
    print("\n".join(lines))


def _rows_of(path: Path) -> dict[str, dict]:
    """A results file's rows, or a clear error for a missing, empty or foreign file."""
    from agent.evaluation.harness import NotResults, read_rows

    if not path.exists():
        raise fail(f"{path} does not exist", 2)
    try:
        rows = read_rows(path)
    except NotResults as exc:
        raise fail(str(exc), 2) from exc
    if not rows:
        raise fail(f"{path} holds no results", 2)
    return rows
