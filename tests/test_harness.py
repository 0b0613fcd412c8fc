"""The evaluation harness and the two baselines, driven by the scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.answer_text import PipelineResult
from agent.evaluation.harness import SUMMARY_KEYS, EvalRun, read_finished
from agent.llm import FakeLLM
from agent.llm.base import LLMTimeout, LLMUnavailable
from agent.pipelines.llm_only import LLMOnlyPipeline
from kg_store import LoadBatch, Triple
from kg_store.memory import MemoryStore
from loaders.questions import Gold, Question, QuestionSet, TopicEntity, select

QUESTIONS = [Question(f"q{i}", f"question number {i}?", (TopicEntity("Movie A", "Movie A"),)) for i in range(5)]
GOLD = {f"q{i}": Gold(f"q{i}", (f"Answer {i}",)) for i in range(5)}


def answer_by_number(messages: list[dict]) -> str:
    number = messages[-1]["content"].split("question number ")[1][0]
    return f"ans: Answer {number}" if number in "024" else "ans: something else"


def test_scores_rows_and_summary(tmp_path: Path) -> None:
    llm = FakeLLM(answer_by_number)
    run = EvalRun(LLMOnlyPipeline(llm), llm, "memory:", tmp_path / "out.jsonl", concurrency=2)
    summary = run.run(QUESTIONS, GOLD)
    assert tuple(summary) == SUMMARY_KEYS
    assert (summary["n"], summary["hits1"], summary["llm_calls_avg"]) == (5, 0.6, 1.0)
    assert summary["coverage"] == 0.0  # llm-only retrieves nothing: zero, not left out
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert {r["id"] for r in rows} == {q.id for q in QUESTIONS}
    row = next(r for r in rows if r["id"] == "q2")
    assert (row["prediction"], row["gold"], row["hits1"], row["f1"]) == (["Answer 2"], ["Answer 2"], 1.0, 1.0)


class Interrupting:
    """A pipeline that is 'killed' (Ctrl-C) when it reaches a given question."""

    name = "llm-only"

    def __init__(self, inner: LLMOnlyPipeline, stop_at: str) -> None:
        self.inner, self.stop_at = inner, stop_at

    def answer(self, question: Question) -> PipelineResult:
        if question.id == self.stop_at:
            raise KeyboardInterrupt
        return self.inner.answer(question)


def test_a_killed_run_resumes_without_redoing_work(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    first = FakeLLM(answer_by_number)
    with pytest.raises(KeyboardInterrupt):
        EvalRun(Interrupting(LLMOnlyPipeline(first), "q3"), first, "memory:", out).run(QUESTIONS, GOLD)
    assert set(read_finished(out)) == {"q0", "q1", "q2"}
    with open(out, "a") as f:
        f.write('{"id": "q3", "predic')  # a line torn by the crash
    second = FakeLLM(answer_by_number)
    summary = EvalRun(LLMOnlyPipeline(second), second, "memory:", out).run(QUESTIONS, GOLD)
    assert len(second.calls) == 2  # only q3 and q4 were asked again
    assert summary["n"] == 5 and summary["hits1"] == 0.6


def test_gold_answers_never_reach_the_model_or_the_traces(tmp_path: Path) -> None:
    sentinel = "ZQX-SENTINEL-ANSWER-7731"
    gold = {q.id: Gold(q.id, (sentinel,)) for q in QUESTIONS}
    llm = FakeLLM(lambda messages: "ans: no idea")
    EvalRun(LLMOnlyPipeline(llm), llm, "memory:", tmp_path / "out.jsonl", trace_dir=tmp_path / "traces").run(QUESTIONS, gold)
    assert llm.calls and all(sentinel not in m["content"] for call in llm.calls for m in call)
    traces = list((tmp_path / "traces").iterdir())
    assert len(traces) == len(QUESTIONS) and all(sentinel not in t.read_text() for t in traces)


def test_each_question_gets_a_trace_of_its_llm_calls(tmp_path: Path) -> None:
    llm = FakeLLM(answer_by_number)
    questions = [*QUESTIONS, Question("WebQTest-1/../x", "question number 9?")]  # an id unfit for a file name
    gold = {**GOLD, "WebQTest-1/../x": Gold("WebQTest-1/../x", ("y",))}
    EvalRun(LLMOnlyPipeline(llm), llm, "memory:", tmp_path / "out.jsonl", trace_dir=tmp_path / "traces").run(questions, gold)
    rows = read_finished(tmp_path / "out.jsonl")
    odd = Path(rows["WebQTest-1/../x"]["trace"])
    assert odd.parent == tmp_path / "traces" and odd.is_file()
    trace = json.loads(Path(rows["q2"]["trace"]).read_text())
    assert trace["question"]["text"] == "question number 2?" and trace["predictions"] == ["Answer 2"]
    [call] = trace["llm_calls"]
    assert "question number 2?" in call["messages"][-1]["content"] and call["reply"] == "ans: Answer 2"


def test_a_failing_question_counts_as_wrong_and_the_run_goes_on(tmp_path: Path) -> None:
    def flaky(messages: list[dict]) -> str:
        if "number 1" in messages[-1]["content"]:
            raise RuntimeError("model crashed")
        return answer_by_number(messages)

    llm = FakeLLM(flaky)
    summary = EvalRun(LLMOnlyPipeline(llm), llm, "memory:", tmp_path / "out.jsonl").run(QUESTIONS, GOLD)
    rows = read_finished(tmp_path / "out.jsonl")
    assert rows["q1"]["error"] == "RuntimeError: model crashed" and rows["q1"]["hits1"] == 0.0
    assert summary["n"] == 5


def test_sample_is_seeded_and_in_file_order() -> None:
    qs = QuestionSet(QUESTIONS, GOLD, "x")
    assert [q.id for q in select(qs, sample=3, seed=1)] == [q.id for q in select(qs, sample=3, seed=1)]
    ids = [q.id for q in select(qs, sample=3, seed=1)]
    assert ids == sorted(ids) and len(ids) == 3
    assert [q.id for q in select(qs, limit=2)] == ["q0", "q1"]


def test_shards_split_the_selection_so_each_question_is_answered_once() -> None:
    qs = QuestionSet(QUESTIONS, GOLD, "x")
    whole = [q.id for q in select(qs, sample=4, seed=1)]
    shards = [[q.id for q in select(qs, sample=4, seed=1, shard=(i, 3))] for i in (1, 2, 3)]
    assert sorted(q for shard in shards for q in shard) == sorted(whole) and all(shards)
    assert shards[0] == whole[0::3]


def test_a_training_sample_excludes_the_evaluation_sample_and_keeps_its_size() -> None:
    # Samples with one seed share a prefix: excluding after sampling would leave 1 of 3.
    qs = QuestionSet(QUESTIONS, GOLD, "x")
    held_out = {q.id for q in select(qs, sample=2, seed=0)}
    training = [q.id for q in select(qs, sample=3, seed=0, exclude=held_out)]
    assert len(training) == 3 and not held_out & set(training)


def test_cosine_triples_puts_the_relevant_fact_in_the_prompt() -> None:
    from agent.embeddings import Embedder
    from agent.pipelines.cosine_triples import CosineTriplesPipeline

    store = MemoryStore()
    facts = [Triple("Movie A", "directed_by", "Person B"), Triple("Movie A", "release_year", "1999")]
    facts += [Triple("Movie A", "has_tags", f"tag {i}") for i in range(40)]
    names = {x for t in facts for x in (t.head, t.tail)}
    store.write(LoadBatch(triples=facts, names=[(n, n) for n in names]))
    llm = FakeLLM(lambda messages: "ans: Person B")
    pipeline = CosineTriplesPipeline(llm, store, Embedder(), top_k=5)
    question = Question("q", "who directed Movie A", (TopicEntity("Movie A", "Movie A"),))
    result = pipeline.answer(question)
    prompt = llm.calls[0][-1]["content"]
    assert "Movie A -> directed_by -> Person B" in prompt
    assert sum(line.startswith("Movie A -> ") for line in prompt.splitlines()) == 5  # top 5 of 42 facts
    assert result.predictions == ["Person B"] and "Person B" in (result.retrieved or [])
    # a topic given by name over a store of ids (a MetaQA-format file over Freebase) is linked by it
    by_id = MemoryStore()
    by_id.write(LoadBatch(triples=[Triple("m.a", "directed_by", "m.b")], names=[("m.a", "Movie A"), ("m.b", "Person B")]))
    named = CosineTriplesPipeline(FakeLLM(lambda messages: "ans: Person B"), by_id, Embedder(), top_k=5)
    answered = named.answer(Question("q", "who directed Movie A", (TopicEntity("Movie A", "Movie A"),)))
    assert answered.details["subgraph_triples"] == 1 and answered.predictions == ["Person B"]


class LosingTheModel:
    """A pipeline whose model endpoint goes away at a given question."""

    name = "llm-only"

    def __init__(self, inner: LLMOnlyPipeline, lost_at: str) -> None:
        self.inner, self.lost_at = inner, lost_at

    def answer(self, question: Question) -> PipelineResult:
        if question.id == self.lost_at:
            raise LLMUnavailable("cannot reach the LLM endpoint http://127.0.0.1:1/v1")
        return self.inner.answer(question)


def test_an_unreachable_model_stops_the_run_without_recording_failures(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    llm = FakeLLM(answer_by_number)
    with pytest.raises(LLMUnavailable):
        EvalRun(LosingTheModel(LLMOnlyPipeline(llm), "q2"), llm, "memory:", out).run(QUESTIONS, GOLD)
    assert set(read_finished(out)) == {"q0", "q1"}  # q2..q4 are not written off as wrong answers
    summary = EvalRun(LLMOnlyPipeline(llm), llm, "memory:", out).run(QUESTIONS, GOLD)
    assert summary["n"] == 5 and summary["hits1"] == 0.6


class TimingOut:
    """A pipeline whose model times out on the given questions."""

    name = "llm-only"

    def __init__(self, inner: LLMOnlyPipeline, slow: set[str]) -> None:
        self.inner, self.slow = inner, slow

    def answer(self, question: Question) -> PipelineResult:
        if question.id in self.slow:
            raise LLMTimeout("http://127.0.0.1:1/v1 gave no reply within 120.0s")
        return self.inner.answer(question)


def test_a_timed_out_question_counts_as_wrong_and_a_rerun_tries_it_again(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    llm = FakeLLM(answer_by_number)
    summary = EvalRun(TimingOut(LLMOnlyPipeline(llm), {"q2"}), llm, "memory:", out).run(QUESTIONS, GOLD)
    assert summary["n"] == 5 and summary["hits1"] == 0.4  # q2's right answer was lost to the timeout
    assert set(read_finished(out)) == {"q0", "q1", "q3", "q4"}
    summary = EvalRun(LLMOnlyPipeline(llm), llm, "memory:", out).run(QUESTIONS, GOLD)
    assert summary["n"] == 5 and summary["hits1"] == 0.6


def test_timeouts_in_a_row_stop_the_run(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    llm = FakeLLM(answer_by_number)
    with pytest.raises(LLMUnavailable, match="in a row timed out"):
        EvalRun(TimingOut(LLMOnlyPipeline(llm), {"q1", "q2", "q3"}), llm, "memory:", out).run(QUESTIONS, GOLD)
    assert set(read_finished(out)) == {"q0"}
