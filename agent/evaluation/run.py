"""One evaluation from settings: read and select the questions, open the store and the
model the settings name, run the pipeline over them with `EvalRun` (streamed, resumable),
and hand back the summary and the rows. Every entry point that evaluates uses this."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from agent.evaluation.harness import EvalRun, read_finished, read_rows
from agent.settings import Settings
from kg_store.errors import InputError
from loaders.questions import Gold, Question, read_questions, select
from loaders.records import MalformedInput


@dataclass(frozen=True)
class EvalPlan:
    """What to evaluate and where the results go."""

    questions: Path
    fmt: str
    pipeline: str
    out_path: Path
    limit: int | None = None
    sample: int | None = None
    seed: int = 0
    shard: tuple[int, int] | None = None  # (i, n): every n-th question of the selection from the i-th
    concurrency: int = 1
    traces: bool = True  # one trace per question in OUT.traces/
    link: bool = False  # withhold the questions' topic entities: the pipeline links them from the text
    part: str | None = None  # the development split's 'tune' or 'report' part only
    force: bool = False  # replace OUT when it holds another run's results

    @property
    def trace_dir(self) -> Path | None:
        return self.out_path.with_suffix(".traces") if self.traces else None


@dataclass(frozen=True)
class EvalOutcome:
    summary: dict
    rows: list[dict]  # the selection's finished rows, this run's and earlier runs'


def parse_shard(value: str) -> tuple[int, int]:
    """`I/N` with 1 <= I <= N."""
    index, _, count = value.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise InputError(f"--shard must be I/N with 1 <= I <= N (e.g. 2/4), not {value!r}")
    return int(index), int(count)


def selected_questions(plan: EvalPlan) -> tuple[list[Question], dict[str, Gold]]:
    """The plan's questions and the gold answers scoring reads after each is answered."""
    try:
        question_set = read_questions(plan.questions, plan.fmt)
    except (MalformedInput, FileNotFoundError) as exc:
        raise InputError(str(exc)) from exc
    chosen = select(question_set, limit=plan.limit, sample=plan.sample, seed=plan.seed, shard=plan.shard,
                    part=plan.part)
    if plan.link:  # the text as a user would type it (MetaQA's brackets are already gone), no ids
        chosen = [replace(question, topic_entities=()) for question in chosen]
    return chosen, question_set.gold


def run_identity(settings: Settings, plan: EvalPlan, model: str, store: str) -> dict[str, object]:
    """What produced a results file: a rerun resumes it only with all of these the same."""
    pog = settings.pog
    return {"pipeline": plan.pipeline, "model": model, "store": store, "questions": str(plan.questions.resolve()),
            "format": plan.fmt, "link": plan.link,
            "preset": pog.preset if plan.pipeline == "pog" else None,
            "memory": str(pog.path_memory.resolve()) if plan.pipeline == "pog" and pog.path_memory else None}


def run_evaluation(settings: Settings, plan: EvalPlan,
                   selection: tuple[list[Question], dict[str, Gold]] | None = None,
                   on_start: Callable[[str, int, int], None] | None = None,
                   on_row: Callable[[dict], None] | None = None) -> EvalOutcome:
    """Answer and score the plan's questions (`selection`, when the caller has already read
    them with `selected_questions`); `on_start(pipeline, already_done, total)` once, then
    `on_row(row)` as each question finishes. A rerun with the same `out_path` resumes."""
    from agent.assembly.agent import open_agent
    from agent.assembly.pipelines import make_pipeline

    chosen, gold = selection or selected_questions(plan)
    read_rows(plan.out_path)  # OUT is a results file or new, before any store or model starts
    with open_agent(settings) as agent:
        llm, store = agent.context.llm, agent.context.store
        runner = EvalRun(make_pipeline(plan.pipeline, agent, settings), llm, store.display_url, plan.out_path,
                         plan.concurrency, plan.trace_dir, identity=run_identity(settings, plan, llm.model_name,
                                                                                 store.display_url), force=plan.force)
        if on_start is not None:
            done = 0 if plan.force else len(read_finished(plan.out_path))
            on_start(runner.pipeline.name, min(done, len(chosen)), len(chosen))
        summary = runner.run(chosen, gold, on_row)
    chosen_ids = {q.id for q in chosen}
    return EvalOutcome(summary, [r for r in read_finished(plan.out_path).values() if r["id"] in chosen_ids])
