"""`kgqa memory build`: a path memory from a question set with gold answers (a dev split)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from kgqa.cli.common import JsonOpt, ProgressLines, StoreOpt, app, console, fail, opened, out, print_json, settings_from
from loaders.records import MalformedInput

memory_app = typer.Typer(help="Path memories: which relation paths answered which questions.", no_args_is_help=True)
app.add_typer(memory_app, name="memory")


@memory_app.command("build")
def memory_build(
    questions: Annotated[Path, typer.Option("--questions", help="Question file with gold answers (a dev split).")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="metaqa, pog, webqsp or rog.")],
    out_path: Annotated[Path, typer.Option("--out", help="Memory file (JSON Lines); a rerun resumes and appends.")],
    store: StoreOpt = None,
    sample: Annotated[int | None, typer.Option(help="A random sample of N questions.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for --sample.")] = 0,
    limit: Annotated[int | None, typer.Option(help="Only the first N (after sampling).")] = None,
    depth: Annotated[int, typer.Option(help="Deepest relation path looked for, in hops.")] = 3,
    min_f1: Annotated[float, typer.Option(help="Keep a path only when its ends match the gold answers this well.")] = 0.5,
    as_json: JsonOpt = False,
) -> None:
    """Find, for each question, the relation path from its topic entities whose end entities
    are its gold answers, and remember (masked question, path). Answers are not stored."""
    from agent.evaluation.harness import select
    from agent.pog.memory import MemoryEntry, build_memory
    from kg_store.paths import NeighborCache
    from loaders.questions import QUESTION_FORMATS, read_questions

    if fmt not in QUESTION_FORMATS:
        raise fail(f"--format must be one of {', '.join(QUESTION_FORMATS)}", 2)
    settings = settings_from(store)
    try:
        question_set = read_questions(questions, fmt)
    except (MalformedInput, FileNotFoundError) as exc:
        raise fail(str(exc), 2) from exc
    chosen = select(question_set, limit=limit, sample=sample, seed=seed)
    labelled = Counter[str]()
    columns = (TextColumn("[bold]memory"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
               TextColumn("{task.fields[kept]} kept"), TimeElapsedColumn(), TimeRemainingColumn())
    with opened(settings, read_only=True) as target, \
            Progress(*columns, console=console, disable=not console.is_terminal) as progress:
        task = progress.add_task("memory", total=len(chosen), kept=0)
        lines = ProgressLines()

        def on_entry(entry: MemoryEntry) -> None:
            labelled["kept" if entry.paths else "none"] += 1
            progress.update(task, advance=1, kept=labelled["kept"])
            lines(lambda: f"memory: {sum(labelled.values())} questions this run, {labelled['kept']} with a path")

        try:
            entries = build_memory(NeighborCache(target, limit_per_entity=settings.pog.limit_per_entity), chosen,
                                   question_set.gold, out_path, max_depth=depth, min_f1=min_f1, on_entry=on_entry)
        except MalformedInput as exc:
            raise fail(str(exc)) from exc
        except KeyboardInterrupt:
            raise fail(f"interrupted: the entries made so far are in {out_path}; run the same command again "
                       "to continue", 130) from None
    kept = [e for e in entries if e.paths]
    paths = Counter(" ".join(f"{'' if f else '~'}{r}" for r, f in path) for e in kept for path in e.paths)
    report = {"questions": len(entries), "with_path": len(kept), "distinct_paths": len(paths),
              "by_depth": dict(sorted(Counter(e.depth for e in kept).items())), "out": str(out_path),
              "ties": sum(len(e.paths) > 1 for e in kept),
              "top_paths": [{"path": p, "questions": n} for p, n in paths.most_common(10)]}
    if as_json:
        print_json(report)
        return
    out.print(f"[green]memory[/] {out_path}: {report['with_path']:,} of {report['questions']:,} questions have a path "
              f"({report['distinct_paths']} distinct, {report['ties']} with tied paths; by depth {report['by_depth']})")
    for row in report["top_paths"]:
        out.print(f"  {row['questions']:6,}  {row['path']}", highlight=False)
