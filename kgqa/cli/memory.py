"""`kgqa memory build`: a path memory from a question set with gold answers (a dev split);
`kgqa memory synthesize`: one from the graph alone, for a KG without labelled questions."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from kg_store import KGQAError
from kgqa.cli.common import (
    JsonOpt,
    LLMOpt,
    QuestionFormat,
    StoreOpt,
    app,
    fail,
    opened,
    out,
    print_json,
    progress_bar,
    settings_from,
)
from loaders.records import MalformedInput

memory_app = typer.Typer(help="Path memories: which relation paths answered which questions.", no_args_is_help=True)
app.add_typer(memory_app, name="memory")


@memory_app.command("build")
def memory_build(
    questions: Annotated[Path, typer.Option("--questions", help="Question file with gold answers (a dev split).")],
    fmt: Annotated[QuestionFormat, typer.Option("--format", "-f", help="The question file's format.")],
    out_path: Annotated[Path, typer.Option("--out", "-o", help="Memory file (JSON Lines); a rerun resumes and appends.")],
    store: StoreOpt = None,
    sample: Annotated[int | None, typer.Option(help="A random sample of N questions.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for --sample.")] = 0,
    limit: Annotated[int | None, typer.Option(help="Only the first N (after sampling).")] = None,
    depth: Annotated[int, typer.Option(help="Deepest relation path looked for, in hops.")] = 3,
    min_f1: Annotated[float, typer.Option(help="Keep a path only when its ends match the gold answers this well.")] = 0.5,
    exclude: Annotated[list[Path] | None, typer.Option(
        "--exclude", help="Question files the memory will be evaluated on (repeatable; format from the suffix: "
        ".txt MetaQA, .json PoG/WebQSP, .jsonl RoG): their questions' groups of near-twins are not learnt.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Find, for each question, the relation path from its topic entities whose end entities
    are its gold answers, and remember (masked question, path). Answers are not stored."""
    from agent.pog.memory import MemoryEntry, build_memory
    from kg_store.paths import NeighborCache
    from loaders.questions import guess_format, question_group, read_questions, select

    settings = settings_from(store)
    try:
        question_set = read_questions(questions, fmt)
        excluded = {question_group(q) for path in exclude or [] for q in read_questions(path, guess_format(path)).questions}
    except (MalformedInput, FileNotFoundError, ValueError) as exc:
        raise fail(str(exc), 2) from exc
    chosen = select(question_set, limit=limit, sample=sample, seed=seed)
    left_out = sum(question_group(q) in excluded for q in chosen)
    labelled = Counter[str]()
    with opened(settings, read_only=True) as target, progress_bar("memory", len(chosen) - left_out) as bar:
        def on_entry(entry: MemoryEntry) -> None:
            labelled["kept" if entry.paths else "none"] += 1
            bar.update(advance=1, note=f"{labelled['kept']} with a path")

        try:
            entries = build_memory(NeighborCache(target, limit_per_entity=settings.pog.limit_per_entity,
                                                 values=settings.pog.walk_values), chosen,
                                   question_set.gold, out_path, max_depth=depth, min_f1=min_f1, exclude_groups=excluded,
                                   on_entry=on_entry)
        except KGQAError as exc:
            raise fail(str(exc)) from exc
        except KeyboardInterrupt:
            raise fail(f"interrupted: the entries made so far are in {out_path}; run the same command again "
                       "to continue", 130) from None
    kept = [e for e in entries if e.paths]
    paths = Counter(" ".join(f"{'' if f else '~'}{r}" for r, f in path) for e in kept for path in e.paths)
    report = {"questions": len(entries), "with_path": len(kept), "distinct_paths": len(paths), "excluded": left_out,
              "by_depth": dict(sorted(Counter(e.depth for e in kept).items())), "out": str(out_path),
              "ties": sum(len(e.paths) > 1 for e in kept),
              "top_paths": [{"path": p, "questions": n} for p, n in paths.most_common(10)]}
    if as_json:
        print_json(report)
        return
    out.print(f"[green]memory[/] {out_path}: {report['with_path']:,} of {report['questions']:,} questions have a path "
              f"({report['distinct_paths']} distinct, {report['ties']} with tied paths; by depth {report['by_depth']})"
              + (f"; {left_out:,} left out as near-twins of --exclude questions" if excluded else ""))
    for row in report["top_paths"]:
        out.print(f"  {row['questions']:6,}  {row['path']}", highlight=False)


@memory_app.command("synthesize")
def memory_synthesize(
    out_path: Annotated[Path, typer.Option("--out", "-o", help="Memory file (JSON Lines); an interrupted run resumes.")],
    store: StoreOpt = None,
    max_depth: Annotated[int, typer.Option("--max-depth", min=1, max=4, help="Longest relation path, in hops.")] = 3,
    seed: Annotated[int, typer.Option(help="Seed for the entities sampled: the same seed, the same memory.")] = 0,
    per_kind: Annotated[int, typer.Option(min=1, help="Entities sampled per kind (a relation's heads or tails).")] = 12,
    llm: LLMOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a path memory from the graph alone, reading no question file: the relation
    paths the graph has (1..D hops, both directions, through unnamed CVT nodes), found
    from a sample of entities of each kind and weighted by how often they occur, each
    written as several questions (the LLM describes each relation from its name and
    example entities; plain templates fill in), topic masked. Entries are marked
    synthetic and hold no answers."""
    from agent.assembly.models import open_llm
    from agent.embeddings import Embedder
    from agent.pog.synthesis import SynthesisOptions, synthesize

    settings = settings_from(store, llm)
    options = SynthesisOptions(max_depth=max_depth, seed=seed, per_kind=per_kind,
                               limit_per_entity=settings.pog.limit_per_entity, values=settings.pog.walk_values)
    started = time.monotonic()
    with opened(settings, read_only=True) as target, progress_bar("starting") as bar:
        def on_step(stage: str, done: int, total: int) -> None:
            bar.update(description=stage, completed=done, total=total)

        try:
            with open_llm(settings) as model:
                report = synthesize(target, model, Embedder.from_settings(settings), out_path, options, on_step=on_step)
        except KGQAError as exc:
            raise fail(str(exc)) from exc
        except KeyboardInterrupt:
            raise fail(f"interrupted: what was found and described so far is in {out_path}.work.jsonl; run the "
                       "same command again to continue", 130) from None
    minutes = (time.monotonic() - started) / 60
    result = {"out": str(out_path), "entries": report.entries, "sequences_by_depth": report.sequences_by_depth,
              "relations_described": report.relations_described, "kinds": report.kinds,
              "written_by_llm": dict(report.from_llm), "llm_calls": report.llm_calls,
              "prompt_tokens": report.prompt_tokens, "completion_tokens": report.completion_tokens,
              "minutes": round(minutes, 2)}
    if as_json:
        print_json(result)
        return
    out.print(f"[green]memory[/] {out_path}: {report.entries:,} synthetic questions for "
              f"{sum(report.sequences_by_depth.values()):,} relation paths (by depth {report.sequences_by_depth}); "
              f"{report.relations_described} relations described ({dict(report.from_llm)} written by the model), "
              f"{report.kinds} kinds of entity; {report.llm_calls} LLM calls, {minutes:.1f} min")


@memory_app.command("vectors")
def memory_vectors(
    memory: Annotated[Path, typer.Argument(help="The memory file (JSON Lines, gzipped or not).")],
    as_json: JsonOpt = False,
) -> None:
    """Store the memory's embeddings beside it (M.vectors.npz), so that loading it does not
    run the embedding model: the first answer on a fresh machine comes sooner."""
    from agent.embeddings import Embedder
    from agent.pog.memory import write_vectors

    try:
        target = write_vectors(memory, Embedder(None))
    except (MalformedInput, FileNotFoundError) as exc:
        raise fail(str(exc), 2) from exc
    if as_json:
        print_json({"memory": str(memory), "vectors": str(target)})
        return
    out.print(f"[green]vectors[/] {target}")
