"""Tests that would catch gold answers or a question's own label leaking into its answer:
the agent's output must be a function of the question alone, and a path memory must never
let a question (or a near-twin of it) see its own entry, through the entry points a user
runs, not only through the memory's own method."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent import PoGConfig
from agent.embeddings import Embedder
from agent.evaluation.harness import EvalRun
from agent.pipelines.pog import PoGPipeline
from agent.pog.context import PoGContext
from agent.pog.memory import MemoryEntry, PathMemory
from kg_store.paths import NeighborCache
from loaders.questions import Gold, Question, TopicEntity, question_group
from tests.pog_fixture import analysis, film_store, scripted

QUESTIONS = [Question("q1", "who directed Big", (TopicEntity("Big", "Big"),)),
             Question("q2", "what films did Tom Hanks act in", (TopicEntity("Tom Hanks", "Tom Hanks"),)),
             Question("q3", "which films did Ron Howard direct", (TopicEntity("Ron Howard", "Ron Howard"),))]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def answer_everything_asked(prompt: str) -> str:
    """The model names every entity of the first path it is shown: what it names, and so
    the answer, follows the order the agent ranked its paths in."""
    first = next((line for line in prompt.splitlines() if line.startswith("Path 1:")), "")
    names = [part.strip(" {}") for part in first.split("->")[-1].split(",")]
    return "\n".join(f"ans: {n}" for n in names if n)


def run_with(gold: dict[str, Gold], embedder: Embedder, tmp_path: Path, name: str) -> tuple[list[dict], list[str]]:
    llm = scripted(analyse=analysis(1), answer=answer_everything_asked)
    pipeline = PoGPipeline(PoGContext(film_store(), llm, embedder, PoGConfig()))
    EvalRun(pipeline, llm, "memory:", tmp_path / f"{name}.jsonl", trace_dir=tmp_path / name).run(QUESTIONS, gold)
    rows = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
    prompts = [m["content"] for call in llm.calls for m in call]
    return rows, prompts


def test_the_answer_is_the_same_whatever_the_gold_answers_are(embedder: Embedder, tmp_path: Path) -> None:
    """Two gold sets, each naming entities the graph holds (the true answers, and the ends
    of other paths from the same topics): anything that used gold before scoring (to pick,
    re-rank or drop a path) would answer differently. It must not."""
    true = {"q1": Gold("q1", ("Penny Marshall",)), "q2": Gold("q2", ("Big", "Splash", "Apollo 13")),
            "q3": Gold("q3", ("Splash", "Apollo 13", "Cocoon"))}
    other = {"q1": Gold("q1", ("1988",)), "q2": Gold("q2", ("Ron Howard",)), "q3": Gold("q3", ("Tom Hanks",))}
    true_rows, true_prompts = run_with(true, embedder, tmp_path, "true")
    other_rows, other_prompts = run_with(other, embedder, tmp_path, "other")
    assert true_prompts == other_prompts
    by_id = {r["id"]: r for r in other_rows}
    for row in true_rows:
        assert row["prediction"] == by_id[row["id"]]["prediction"] and row["details"] == by_id[row["id"]]["details"]
    assert sum(r["hits1"] for r in true_rows) > sum(r["hits1"] for r in other_rows)  # the gold sets do differ
    assert traces(tmp_path / "true") == traces(tmp_path / "other")


def traces(folder: Path) -> dict[str, object]:
    """Each trace without its clock readings (durations and times differ run to run)."""
    def timeless(value: object) -> object:
        if isinstance(value, dict):
            return {k: timeless(v) for k, v in value.items() if not any(t in k for t in ("second", "start", "ended", "time"))}
        if isinstance(value, list):
            return [timeless(v) for v in value]
        return value

    return {p.name: timeless(json.loads(p.read_text())) for p in folder.iterdir()}


def memory_with(entries: list[MemoryEntry], tmp_path: Path) -> Path:
    path = tmp_path / "memory.jsonl"
    path.write_text("".join(e.model_dump_json() + "\n" for e in entries))
    return path


RELEASE = (("release_year", True),)
GENRE = (("has_genre", True),)


@pytest.mark.parametrize("leaker", ["own entry", "near-twin"])
def test_the_pipeline_keeps_a_questions_own_and_twin_entries_out(embedder: Embedder, tmp_path: Path,
                                                                 leaker: str) -> None:
    """A memory whose only entry with a path to the release year (wrong for "who directed
    Big", so that using it shows) is the question's own, or a near-twin's (another set's
    copy of the same question: another id, the same group). Run through the pipeline, as
    `kgqa eval` does: the entry must not vote. Stop passing the id or the group, and this
    fails."""
    question = QUESTIONS[0]
    twin = Question("webquestions:7", "Who directed Big?", question.topic_entities)
    assert question_group(twin) == question_group(question)
    # the own entry as in a memory file from before groups (the bundled MetaQA one): only its id tells
    source, group = (question, None) if leaker == "own entry" else (twin, question_group(twin))
    entries = [MemoryEntry(question_id=source.id, question="who directed X", group=group,
                           paths=[list(RELEASE)], depth=1, f1=1.0),
               MemoryEntry(question_id="other", question="what is the genre of X", group="what is the genre of x",
                           paths=[list(GENRE)], depth=1, f1=1.0)]
    llm = scripted(analyse=analysis(1), answer="ans: nothing")
    memory = PathMemory.load(memory_with(entries, tmp_path), embedder)
    pipeline = PoGPipeline(PoGContext(film_store(), llm, embedder, PoGConfig(), memory=memory))
    voted = [tuple(map(tuple, p.steps)) for p in pipeline.run(question)["path_prior"]]
    assert voted == [GENRE]
    # the memory told nothing of the question would use the entry: it is the nearest
    told_nothing = pipeline.context.memory.prior(embedder.encode(["who directed X"])[0])
    assert tuple(map(tuple, told_nothing[0].steps)) == RELEASE


def test_a_build_with_exclude_learns_no_near_twin_and_refuses_a_leaky_file(tmp_path: Path) -> None:
    from agent.pog.memory import build_memory

    store = film_store()
    twin = Question("webquestions:7", "Who directed Big?", QUESTIONS[0].topic_entities)
    gold = {twin.id: Gold(twin.id, ("Penny Marshall",)), "q2": Gold("q2", ("Big", "Splash", "Apollo 13"))}
    out = tmp_path / "m.jsonl"
    entries = build_memory(NeighborCache(store), [twin, QUESTIONS[1]], gold, out,
                           exclude_groups={question_group(QUESTIONS[0])})
    assert [e.question_id for e in entries] == ["q2"] and entries[0].group == question_group(QUESTIONS[1])
    build_memory(NeighborCache(store), [twin], gold, tmp_path / "leaky.jsonl")
    with pytest.raises(ValueError, match="excluded groups"):
        build_memory(NeighborCache(store), [twin], gold, tmp_path / "leaky.jsonl",
                     exclude_groups={question_group(QUESTIONS[0])})
