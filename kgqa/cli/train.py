"""`kgqa train kg-scout`: train the KG-Scout retriever on questions with gold answers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg_store.base import redact_url
from kgqa.cli.common import (
    JsonOpt,
    QuestionFormat,
    StoreOpt,
    app,
    choices,
    console,
    fail,
    opened,
    out,
    print_json,
    progress_bar,
    settings_from,
)
from loaders.records import MalformedInput

train_app = typer.Typer(help="Train the learnt parts (from dev splits only).", no_args_is_help=True)
app.add_typer(train_app, name="train")
Device = choices("Device", ("cpu", "cuda"))


@train_app.command("kg-scout")
def train_kg_scout(
    questions: Annotated[list[Path], typer.Option("--questions", help="Question file(s) with gold answers (dev splits).")],
    fmt: Annotated[QuestionFormat, typer.Option("--format", "-f", help="The question files' format.")],
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
    device: Annotated[Device | None, typer.Option(
        help="For the embeddings and the policy; default KGQA_EMBEDDING_DEVICE (cpu).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Train the KG-Scout policy (REINFORCE; reward 2 presence + 4 connectivity + 1
    efficiency + 3 coverage) and write a checkpoint that
    `kgqa eval --pipeline triples --scorer kg-scout --scorer-model FILE` loads."""
    from agent.embeddings import Embedder
    from agent.optional_nodes.kg_scout.training import (
        Example,
        TrainingConfig,
        prepare,
        save_checkpoint,
        train,
        training_questions,
    )

    if out_path.suffix != ".pt":
        raise fail("--out should name a .pt file", 2)
    settings = settings_from(store)
    if device is not None:
        settings = settings.model_copy(update={"embedding_device": device.value})
    try:
        chosen, gold = training_questions(questions, fmt, sample=sample, seed=seed, held_out_sample=exclude_sample,
                                          held_out_seed=exclude_seed)
    except (MalformedInput, FileNotFoundError) as exc:
        raise fail(str(exc), 2) from exc
    config = TrainingConfig(candidates=candidates, k=k, epochs=epochs, patience=patience, min_epochs=min_epochs,
                            seed=seed, device=settings.embedding_device)
    embedder = Embedder.from_settings(settings)
    with opened(settings, read_only=True) as target, progress_bar("features", len(chosen)) as bar:
        usable = 0

        def on_question(example: Example | None) -> None:
            nonlocal usable
            usable += example is not None
            bar.update(advance=1, note=f"{usable} usable")

        try:
            examples = prepare(target, chosen, gold, embedder, config, on_question)
        except KeyboardInterrupt:
            raise fail("interrupted while preparing features (they are cached: a rerun is faster)", 130) from None
    if len(examples) < 2:
        raise fail(f"only {len(examples)} of {len(chosen)} questions have their answers among more than {k} "
                   "candidates: nothing to learn from (use more questions, or a smaller --k)")
    with progress_bar("training", epochs) as bar:
        def on_epoch(row: dict) -> None:
            note = f"train {row['train_reward']:.3f}  validation {row['validation_reward']:.3f}"
            bar.update(advance=1, note=note)
            console.print(f"epoch {row['epoch']}: {note} ({row['seconds']:.0f}s)", highlight=False)

        try:
            model, history = train(examples, config, on_epoch)
        except KeyboardInterrupt:
            raise fail("interrupted: no checkpoint written", 130) from None
    save_checkpoint(out_path, model, config, history, {
        "questions": [str(p) for p in questions], "format": fmt.value, "used": len(examples), "selected": len(chosen),
        "sample": sample, "seed": seed, "excluded_sample": exclude_sample, "excluded_seed": exclude_seed,
        "store": redact_url(settings.store_url if store is None else store)})
    report = {"out": str(out_path), "questions": len(chosen), "used": len(examples), "epochs": len(history),
              "best_validation_reward": max(h["validation_reward"] for h in history), "history": history}
    if as_json:
        print_json(report)
    else:
        out.print(f"[green]wrote[/] {out_path}: trained on {len(examples)} of {len(chosen)} questions, "
                  f"{len(history)} epochs, best validation reward {report['best_validation_reward']:.3f}")
