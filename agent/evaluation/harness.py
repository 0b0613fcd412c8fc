"""Batch evaluation: run a pipeline over a question set, score each answer against gold
only after the pipeline is done with it, append one JSON line per question as it
finishes (flushed), and resume from those lines on a rerun."""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import json
import os
import re
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from agent.answer_text import PipelineResult
from agent.evaluation import metrics
from agent.llm.base import LLMClient, LLMTimeout, LLMUnavailable, ModelNotFound, Usage
from agent.pipelines.base import Pipeline
from agent.traces import trace_document, write_trace
from kg_store.errors import InputError, KGQAError
from loaders.questions import Gold, Question

SUMMARY_KEYS = (
    "n", "hits1", "hit", "f1", "coverage", "lenient_em", "llm_calls_avg", "prompt_tokens_avg",
    "completion_tokens_avg", "seconds_p50", "seconds_p95", "pipeline", "model", "store",
)


def score(result: PipelineResult, gold: Gold) -> dict[str, float | None]:
    answers = list(gold.answers)
    coverage = None if result.retrieved is None else metrics.covered(result.retrieved, answers)
    return {**metrics.answer_scores(result.predictions, answers, result.raw_output), "coverage": coverage}


class NotResults(InputError):
    """A file given as results that is not a results file."""


def read_rows(path: Path) -> dict[str, dict]:
    """A results file's rows by question id (plain or gzipped JSONL); a torn last line
    (crash mid-write) is skipped; none if the file does not exist or is empty. A file with
    any other line that is not a results row (notes, a CSV) is no results file: NotResults,
    and nothing in it is rewritten."""
    rows: dict[str, dict] = {}
    if path.exists():
        try:
            raw = path.read_bytes()
            text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8")
        except IsADirectoryError as exc:
            raise NotResults(f"{path} is a folder, not a results file (JSONL)") from exc
        except (OSError, EOFError, UnicodeDecodeError) as exc:  # gzip's BadGzipFile is an OSError
            raise NotResults(f"{path} is not a results file (JSONL, or gzipped JSONL): {exc}") from exc
        lines = text.splitlines()
        for number, line in enumerate(lines, 1):
            try:
                row = json.loads(line)
            except ValueError:
                row = None
            if isinstance(row, dict) and "id" in row:
                rows[row["id"]] = row
            elif number < len(lines) or not rows and line.strip():  # only a torn last row is expected
                raise NotResults(f"{path} is not a results file: line {number} is not a results row "
                                 f"({line[:60]!r}); give --out a new file name")
    return rows


def check_identity(out_path: Path, rows: dict[str, dict], identity: dict[str, object]) -> None:
    """Refuse to add to a results file that another setup wrote (another pipeline, model,
    preset, store, memory or question file): its rows and this run's would be summarised
    as one. Rows from before results recorded their run carry no identity and are taken."""
    for row in rows.values():
        written = row.get("run")
        if isinstance(written, dict) and written != identity:
            differ = [f"{key} {written.get(key)!r} -> {identity.get(key)!r}"
                      for key in sorted(set(written) | set(identity)) if written.get(key) != identity.get(key)]
            raise ResultsFromAnotherRun(
                f"{out_path} holds results of another run ({'; '.join(differ)}): give this run its own --out, "
                "or --force to replace that file")


# Failures of the endpoint, not of the question: a rerun asks those questions again. They
# are told apart by type when they happen (`endpoint_failure` in the row). Rows written
# before that field are recognised by their error's type name, and rows from before error
# types were recorded (a server error or a page that was no chat completion scored as a
# failed question) by their message.
ENDPOINT_FAILURES = (LLMTimeout, LLMUnavailable, ModelNotFound)
_LEGACY_TYPE_NAMES = tuple(kind.__name__ for kind in ENDPOINT_FAILURES)
_LEGACY_MESSAGE = re.compile(r"^(LLMError: \S+ (answered HTTP 5\d\d|refused the API key|returned no choices)"
                             r"|AttributeError: 'str' object has no attribute 'choices'|JSONDecodeError: )")


def failed_for_the_endpoint(row: dict) -> bool:
    if "endpoint_failure" in row:
        return bool(row["endpoint_failure"])
    error = str(row.get("error") or "")
    return row.get("error_type") in _LEGACY_TYPE_NAMES or error.startswith(_LEGACY_TYPE_NAMES) \
        or bool(_LEGACY_MESSAGE.match(error))


def read_finished(out_path: Path) -> dict[str, dict]:
    """Rows already written, but for questions that failed for the endpoint's sake (a
    rerun asks them again)."""
    return {k: row for k, row in read_rows(out_path).items() if not failed_for_the_endpoint(row)}


def tidy_results(out_path: Path, keep: dict[str, dict]) -> None:
    """Rewrite a results file to exactly one line per kept row, in file order, when it
    holds anything else: a torn last line (a crash mid-write), a second row for an id,
    rows to be asked again. Atomic: a crash here leaves the old file or the new one."""
    if not out_path.exists():
        return
    lines = out_path.read_text("utf-8").splitlines(keepends=True)
    if len(lines) == len(keep) and all(line.endswith("\n") for line in lines):
        return
    tidy = out_path.with_name(out_path.name + ".tidy")
    with open(tidy, "w", encoding="utf-8") as out:
        out.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in keep.values())
    os.replace(tidy, out_path)


class ResultsInUse(KGQAError):
    """Another process is writing the same results file."""


class ResultsFromAnotherRun(InputError):
    """The results file was written by another pipeline, model, preset, store, memory or
    question file."""


@contextmanager
def exclusive(out_path: Path) -> Iterator[None]:
    """Hold a lock on a results file while a run writes it: two runs on one file would
    answer every question twice and interleave their rows."""
    lock_path = out_path.with_name(out_path.name + ".lock")
    while True:
        try:
            out_path.parent.mkdir(parents=True, exist_ok=True)
            lock = open(lock_path, "w")  # noqa: SIM115 - held open for the whole run
        except OSError as exc:  # a read-only folder, a full disk
            raise InputError(f"cannot write results to {out_path}: {exc.strerror or exc}; give --out a file in a "
                             "folder you can write") from exc
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise ResultsInUse(f"{out_path} is being written by another run (kgqa eval on the same --out); "
                               "wait for it, or give this one its own --out") from None
        # The run before may have removed the file between our open and our lock: then
        # the lock is on a file no one else will see; take the one at the path.
        if lock_path.exists() and os.fstat(lock.fileno()).st_ino == lock_path.stat().st_ino:
            break
        lock.close()
    try:
        yield
    finally:
        lock_path.unlink(missing_ok=True)
        lock.close()


def trace_file_name(question_id: str) -> str:
    """A file name for any question id: readable where it can be, unique by a hash."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", question_id)[:80]
    return f"{readable}-{hashlib.sha1(question_id.encode()).hexdigest()[:8]}.json"


@dataclass
class EvalRun:
    pipeline: Pipeline
    llm: LLMClient
    store: str
    out_path: Path
    concurrency: int = 1
    # One JSON trace per question (its prompts and replies) in this folder; None: none.
    trace_dir: Path | None = None
    # A model request that times out fails its question; this many in a row in a run
    # mean the endpoint is stuck, and the run stops (a rerun resumes).
    timeouts_in_a_row: int = 3
    # What produced the results (pipeline, model, preset, store, memory, question file),
    # written into every row: a rerun resumes only a file of the same identity.
    identity: dict[str, object] = field(default_factory=dict)
    # Start a new file even when OUT holds another run's results (those are replaced).
    force: bool = False

    def run(
        self, questions: list[Question], gold: dict[str, Gold], on_row: Callable[[dict], None] | None = None
    ) -> dict:
        with exclusive(self.out_path):
            if self.force:
                read_rows(self.out_path)  # never replace what is not a results file
                self.out_path.unlink(missing_ok=True)
            finished = read_finished(self.out_path)
            if self.identity:
                check_identity(self.out_path, finished, self.identity)
            tidy_results(self.out_path, finished)
            self._answer([q for q in questions if q.id not in finished], gold, finished, on_row)
        return self.summary([finished[q.id] for q in questions])

    def _answer(self, todo: list[Question], gold: dict[str, Gold], finished: dict[str, dict],
                on_row: Callable[[dict], None] | None) -> None:
        write_lock = threading.Lock()
        with open(self.out_path, "a", encoding="utf-8") as out, ThreadPoolExecutor(self.concurrency) as pool:
            futures = [pool.submit(self._one, q) for q in todo]
            try:
                timeouts = 0
                for future in as_completed(futures):
                    question, result, usage, seconds, failure, trace = future.result()
                    timeouts = timeouts + 1 if isinstance(failure, LLMTimeout) else 0
                    if timeouts >= self.timeouts_in_a_row:
                        raise LLMUnavailable(f"{timeouts} questions in a row timed out waiting for the model "
                                             f"(the last: {failure}); is the endpoint stuck?")
                    row = self._row(question, result, usage, seconds, failure, trace, gold[question.id])
                    with write_lock:
                        out.write(json.dumps(row, ensure_ascii=False) + "\n")
                        out.flush()
                    finished[question.id] = row
                    if on_row:
                        on_row(row)
            except BaseException:  # the model is gone, or Ctrl-C: stop, keep what is written
                for future in futures:
                    future.cancel()
                raise

    def _one(self, question: Question):
        started = time.perf_counter()
        with self.llm.track(log=self.trace_dir is not None) as usage:
            try:
                result, failure = self.pipeline.answer(question), None
            except LLMUnavailable:
                raise  # not this question's fault: every later one would fail too; a rerun resumes
            except Exception as exc:  # noqa: BLE001 - one failed question must not end the run
                result, failure = PipelineResult([], ""), exc
        seconds = time.perf_counter() - started
        trace = self._write_trace(question, result, usage, seconds, _message(failure)) if self.trace_dir else None
        return question, result, usage, seconds, failure, trace

    def _write_trace(self, question: Question, result: PipelineResult, usage: Usage, seconds: float,
                     error: str | None) -> Path:
        """Written before the answer is scored, so a trace never holds gold answers."""
        assert self.trace_dir is not None
        document = trace_document(question, result, usage, seconds, pipeline=self.pipeline.name,
                                  model=self.llm.model_name, store=self.store, error=error)
        return write_trace(self.trace_dir / trace_file_name(question.id), document)

    def _row(self, question: Question, result: PipelineResult, usage: Usage, seconds: float,
             failure: Exception | None, trace: Path | None, gold: Gold) -> dict:
        # Gold is read here, after the pipeline has returned: never before.
        return {
            "id": question.id, "question": question.text, "meta": question.meta,
            "prediction": result.predictions, "gold": list(gold.answers), **score(result, gold),
            "llm_calls": usage.calls, "llm_cache_hits": usage.cache_hits, "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens, "seconds": round(seconds, 3),
            "llm_seconds": round(usage.seconds, 3),
            "raw_output": result.raw_output, "details": result.details, "error": _message(failure),
            "error_type": type(failure).__name__ if failure else None,
            "endpoint_failure": isinstance(failure, ENDPOINT_FAILURES),
            "trace": str(trace) if trace else None,
            **({"run": self.identity} if self.identity else {}),
        }

    def summary(self, rows: Iterable[dict]) -> dict:
        rows = list(rows)
        n = len(rows)

        def mean(key: str) -> float:
            return round(sum(float(r[key] or 0.0) for r in rows) / n, 4) if n else 0.0

        seconds = sorted(r["seconds"] for r in rows)
        return {
            "n": n, "hits1": mean("hits1"), "hit": mean("hit"), "f1": mean("f1"),
            # Full denominator: a pipeline that retrieves nothing scores 0 coverage.
            "coverage": mean("coverage"), "lenient_em": mean("lenient_em"),
            "llm_calls_avg": mean("llm_calls"), "prompt_tokens_avg": mean("prompt_tokens"),
            "completion_tokens_avg": mean("completion_tokens"),
            "seconds_p50": round(statistics.median(seconds), 3) if seconds else 0.0,
            "seconds_p95": round(seconds[min(n - 1, int(0.95 * n))], 3) if seconds else 0.0,
            "pipeline": self.pipeline.name, "model": self.llm.model_name, "store": self.store,
        }


def _message(failure: Exception | None) -> str | None:
    """How a failed question's row and trace name its error: its type, then its words."""
    return f"{type(failure).__name__}: {failure}" if failure else None
