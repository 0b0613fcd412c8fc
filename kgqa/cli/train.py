"""`kgqa train kg-scout`: train the KG-Scout retriever on questions with gold answers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from kg_store.base import redact_url
from kgqa.cli.common import JsonOpt, ProgressLines, StoreOpt, app, console, fail, opened, out, print_json, settings_from
from loaders.records import MalformedInput

train_app = typer.Typer(help="Train the learnt parts (from dev splits only).", no_args_is_help=True)
app.add_typer(train_app, name="train")


@train_app.command("kg-scout")
def train_kg_scout(
    questions: Annotated[list[Path], typer.Option("--questions", help="Question file(s) with gold answers (dev splits).")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="metaqa, pog, webqsp or rog.")],
    out_path: Annotated[Path, typer.Option("--out", "-o", help="Where to write the checkpoint (model.pt).")],
    store: StoreOpt = None,
    epochs: Annotated[int, typer.Option(help="Epochs at most (early stopping may end sooner).")] = 30,
    sample: Annotated[int | None, typer.Option(help="A random sample of N questions per file.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for --sample and for training.")] = 0,
    exclude_sample: Annotated[int | None, typer.Option(
        help="Leave out the questions `kgqa eval --sample N --seed EXCLUDE_SEED` evaluates on.")] = None,
    exclude_seed: Annotated[int, typer.Option(help="Seed of that evaluation sample.")] = 0,
    k: Annotated[int, typer.Option("--k", help="Triples the policy selects.")] = 100,
    candidates: Annotated[int, typer.Option(help="Cosine pre-filter: candidates per question.")] = 1000,
    patience: Annotated[int, typer.Option(help="Epochs without a better validation reward before stopping.")] = 5,
    min_epochs: Annotated[int, typer.Option(help="Epochs always trained before early stopping may end the run.")] = 10,
    device: Annotated[str | None, typer.Option(
        help="cpu or cuda, for the embeddings and the policy; default KGQA_EMBEDDING_DEVICE (cpu).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Train the KG-Scout policy (REINFORCE; reward 2 presence + 4 connectivity + 1
    efficiency + 3 coverage) and write a checkpoint that
    `kgqa eval --pipeline triples --scorer kg-scout --scorer-model FILE` loads."""
    from agent.embeddings import Embedder
    from agent.evaluation.harness import select
    from agent.optional.kg_scout.training import Example, TrainingConfig, prepare, save_checkpoint, train
    from loaders.questions import QUESTION_FORMATS, read_questions

    if fmt not in QUESTION_FORMATS:
        raise fail(f"--format must be one of {', '.join(QUESTION_FORMATS)}", 2)
    if out_path.suffix != ".pt":
        raise fail("--out should name a .pt file", 2)
    settings = settings_from(store)
    if device is not None:
        if device not in ("cpu", "cuda"):
            raise fail("--device must be cpu or cuda", 2)
        settings = settings.model_copy(update={"embedding_device": device})
    chosen, gold = [], {}
    for path in questions:
        try:
            question_set = read_questions(path, fmt)
        except (MalformedInput, FileNotFoundError) as exc:
            raise fail(str(exc), 2) from exc
        held_out = {q.id for q in select(question_set, sample=exclude_sample, seed=exclude_seed)} if exclude_sample else set()
        # Held-out questions are removed before sampling: samples with one seed share a
        # prefix, so removing them afterwards would shrink the training set instead.
        chosen += select(question_set, sample=sample, seed=seed, exclude=held_out)
        gold.update(question_set.gold)
    config = TrainingConfig(candidates=candidates, k=k, epochs=epochs, patience=patience, min_epochs=min_epochs,
                            seed=seed, device=settings.embedding_device)
    embedder = Embedder.from_settings(settings)
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
               TextColumn("{task.fields[note]}"), TimeElapsedColumn(), TimeRemainingColumn())
    lines = ProgressLines()
    with opened(settings, read_only=True) as target, \
            Progress(*columns, console=console, disable=not console.is_terminal) as progress:
        task = progress.add_task("features", total=len(chosen), note="")
        kept = [0]

        def on_question(example: Example | None) -> None:
            kept[0] += example is not None
            progress.update(task, advance=1, note=f"{kept[0]} usable")
            lines(lambda: f"features: {progress.tasks[task].completed:.0f}/{len(chosen)}, {kept[0]} usable")

        try:
            examples = prepare(target, chosen, gold, embedder, config, on_question)
        except KeyboardInterrupt:
            raise fail("interrupted while preparing features (they are cached: a rerun is faster)", 130) from None
    if len(examples) < 2:
        raise fail(f"only {len(examples)} of {len(chosen)} questions have their answers among more than {k} "
                   "candidates: nothing to learn from (use more questions, or a smaller --k)")
    history: list[dict] = []
    with Progress(*columns, console=console, disable=not console.is_terminal) as progress:
        task = progress.add_task("training", total=epochs, note="")

        def on_epoch(row: dict) -> None:
            history.append(row)
            note = f"train {row['train_reward']:.3f}  validation {row['validation_reward']:.3f}"
            progress.update(task, advance=1, note=note)
            console.print(f"epoch {row['epoch']}: {note} ({row['seconds']:.0f}s)", highlight=False)

        try:
            model, history = train(examples, config, on_epoch)
        except KeyboardInterrupt:
            raise fail("interrupted: no checkpoint written", 130) from None
    save_checkpoint(out_path, model, config, history, {
        "questions": [str(p) for p in questions], "format": fmt, "used": len(examples), "selected": len(chosen),
        "sample": sample, "seed": seed, "excluded_sample": exclude_sample, "excluded_seed": exclude_seed,
        "store": redact_url(settings.store_url if store is None else store)})
    report = {"out": str(out_path), "questions": len(chosen), "used": len(examples), "epochs": len(history),
              "best_validation_reward": max(h["validation_reward"] for h in history), "history": history}
    if as_json:
        print_json(report)
    else:
        out.print(f"[green]wrote[/] {out_path}: trained on {len(examples)} of {len(chosen)} questions, "
                  f"{len(history)} epochs, best validation reward {report['best_validation_reward']:.3f}")
