"""Reasoning traces as people read them: `kgqa trace show`, `html` (checked in headless
Chromium) and `diff`, on traces of real PoG runs over the film KG."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.embeddings import Embedder
from agent.pipelines.pog import PoGPipeline, result_of
from agent.pog.config import PoGConfig
from agent.pog.context import PoGContext
from agent.traces import trace_document, write_trace
from kgqa.cli import app
from loaders.questions import Question, TopicEntity
from tests.pog_fixture import analysis, film_store, scripted

QUESTION = "who directed the films Tom Hanks acted in"


def run_traced(path: Path, embedder: Embedder, strategy: str, answer: str = "ans: Ron Howard",
               answer_margin: float = 0.05) -> Path:
    llm = scripted(analyse=analysis(1), answer=answer, select='{"paths": [2, 1]}')
    config = PoGConfig(strategy=strategy, start_depth="model", answer_margin=answer_margin)
    pipeline = PoGPipeline(PoGContext(film_store(), llm, embedder, config))
    question = Question("q1", QUESTION, (TopicEntity("Tom Hanks"),))
    started = time.perf_counter()
    with llm.track(log=True) as usage:
        state = pipeline.run(question)
    return write_trace(path, trace_document(question, result_of(state), usage, time.perf_counter() - started,
                                            pipeline="pog", model="fake", store="memory:"))


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder, embedder = tmp_path_factory.mktemp("traces"), Embedder()
    return {"fuzzy": run_traced(folder / "fuzzy.json", embedder, "fuzzy"),
            "precise": run_traced(folder / "precise.json", embedder, "fuzzy+precise"),
            # a wide margin lets the model's pick of a weaker path stand: another answer
            "other-answer": run_traced(folder / "other.json", embedder, "fuzzy", answer="ans: Splash", answer_margin=1.0)}


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_show_prints_the_answer_each_node_and_each_pruning_step(traces) -> None:
    result = invoke("trace", "show", str(traces["precise"]))
    assert result.exit_code == 0, result.output
    shown = result.stdout
    assert QUESTION in shown and "answer: Ron Howard, Penny Marshall" in shown and "source kg" in shown
    assert re.search(r"analyse_question .* s", shown) and "go_deeper" in shown
    assert "fuzzy: " in shown and "precise: " in shown  # the ranking after each pruning step
    assert "Tom Hanks <- starred_actors <- {Apollo 13, Big, Splash} -> directed_by" in shown
    assert re.search(r"LLM calls \(\d+\)", shown) and "reply:" in shown


def test_html_is_one_self_contained_page_with_the_paths_drawn(traces, tmp_path) -> None:
    page = tmp_path / "trace.html"
    assert invoke("trace", "html", str(traces["fuzzy"]), "-o", str(page)).exit_code == 0
    html = page.read_text()
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", html)  # nothing fetched from anywhere
    graph = html[html.index("<svg id='reasoning-graph'"):html.index("</svg>", html.index("reasoning-graph"))]
    assert "class='node n-topic' data-id='Tom Hanks'" in graph
    assert "class='node n-answer' data-id='Ron Howard'" in graph and "class='node n-answer' data-id='Penny Marshall'" in graph
    assert "e-kept" in graph and "e-pruned" in graph  # kept paths and branches pruned away
    assert "Using these paths, answer the question" in html  # the prompts, expandable
    assert "<span class='meta' id='why'>the model named the end of a path ranked near the best</span>" in html


def test_html_renders_in_chromium_with_prompts_that_expand(traces, tmp_path, browser) -> None:
    page_file = tmp_path / "trace.html"
    invoke("trace", "html", str(traces["fuzzy"]), "-o", str(page_file))
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(page_file.as_uri())
    assert page.locator("#reasoning-graph .n-topic").count() == 1
    assert page.locator("#reasoning-graph .node").count() >= 5
    box = page.locator("#reasoning-graph").bounding_box()
    assert box and box["width"] > 400 and box["height"] > 100  # drawn, not collapsed
    prompt = page.locator(".llm-call .prompt").first
    assert not prompt.is_visible()
    page.locator(".llm-call summary").first.click()
    assert prompt.is_visible() and "Analyse the question" in prompt.inner_text()
    shot = tmp_path / "trace.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    page.close()


def test_a_literal_answer_is_shown_as_a_quoted_value_never_its_control_character(tmp_path) -> None:
    from kg_store import Attribute, LoadBatch, Triple
    from kg_store.memory import MemoryStore

    store = MemoryStore()
    store.write(LoadBatch(triples=[Triple("ada", "born_in", "london")], names=[("ada", "Ada"), ("london", "London")],
                          attributes=[Attribute("ada", "birth_date", "1815-12-10")]))
    llm = scripted(analyse=analysis(1), answer="ans: 1815-12-10")
    pipeline = PoGPipeline(PoGContext(store, llm, Embedder(), PoGConfig()))
    question = Question("q1", "when was Ada born", (TopicEntity("ada", "Ada"),))
    with llm.track(log=True) as usage:
        state = pipeline.run(question)
    trace = write_trace(tmp_path / "t.json", trace_document(question, result_of(state), usage, 0.1, pipeline="pog",
                                                            model="fake", store="memory:"))
    page = tmp_path / "trace.html"
    assert invoke("trace", "html", str(trace), "-o", str(page)).exit_code == 0
    html = page.read_text()
    assert "class='node n-answer' data-id='&quot;1815-12-10&quot;'" in html and "\x1f" not in html


def test_diff_names_what_changed_between_two_runs(traces) -> None:
    result = invoke("trace", "diff", str(traces["fuzzy"]), str(traces["precise"]), "--json")
    assert result.exit_code == 0, result.output
    diff = json.loads(result.stdout)
    assert diff["same_question"] and diff["answers"]["added"] == diff["answers"]["removed"] == []
    calls = diff["cost"]["llm_calls"]
    assert calls[1] > calls[0] and diff["prompts"]["after"] == calls[1]
    changed = invoke("trace", "diff", str(traces["fuzzy"]), str(traces["other-answer"]))
    assert "answers: Ron Howard, Penny Marshall → Splash, Apollo 13, Big" in changed.stdout
    assert "+ Splash" in changed.stdout and "- Ron Howard" in changed.stdout
    assert "+ path Tom Hanks <- starred_actors <- {Apollo 13, Big, Splash}\n" not in changed.stdout  # in both runs


def test_a_file_that_is_not_a_trace_is_a_clear_error(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = invoke("trace", "show", str(bad))
    assert result.exit_code == 2 and "is not a trace: not JSON" in one_line(result.output)
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}')
    assert "no version and question" in one_line(invoke("trace", "html", str(other), "-o", str(tmp_path / "x.html")).output)
    assert "no such trace file" in one_line(invoke("trace", "diff", str(tmp_path / "missing.json"), str(bad)).output)


def one_line(text: str) -> str:
    return " ".join(text.split())
