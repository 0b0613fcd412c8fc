"""The evaluation browser: `kgqa report` and `kgqa compare --html` pages (every question,
filters, won/lost, links to trace pages), the trace page's plain word on an overruled
answer, gold answers on the report only; checked in headless Chromium like the trace page."""

from __future__ import annotations

import gzip
import json
import re
import time
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.embeddings import Embedder
from agent.evaluation.metrics import answer_scores
from agent.pipelines.pog import PoGPipeline, result_of
from agent.pog.config import PoGConfig
from agent.pog.context import PoGContext
from agent.traces import answer_verdict, depth_verdict, trace_document, write_trace
from kgqa.cli import app
from kgqa.eval_browser import RunPages, compare_page, histogram_svg, run_page
from kgqa.traces.page import trace_page
from loaders.questions import Question, TopicEntity
from tests.pog_fixture import analysis, film_store, scripted
from tests.scripted_endpoint import completion

DIRECTED = "who directed the films Tom Hanks acted in"
GOLD_DIRECTORS = ["Ron Howard", "Penny Marshall"]


def traced_run(path: Path, embedder: Embedder, qid: str, answer: str) -> Path:
    """A real PoG run over the film KG with a scripted model, its trace written as eval does."""
    llm = scripted(analyse=analysis(1), answer=answer, select='{"paths": [2, 1]}')
    pipeline = PoGPipeline(PoGContext(film_store(), llm, embedder, PoGConfig(strategy="fuzzy", start_depth="model")))
    question = Question(qid, DIRECTED, (TopicEntity("Tom Hanks"),))
    started = time.perf_counter()
    with llm.track(log=True) as usage:
        state = pipeline.run(question)
    return write_trace(path, trace_document(question, result_of(state), usage, time.perf_counter() - started,
                                            pipeline="pog", model="fake", store="memory:"))


def memory_trace(path: Path) -> Path:
    """A trace (written by hand) whose answer the path memory chose over the model's: the
    model said "Sally Field", the memory's trusted path ends at "Robert Zemeckis"."""
    path_update = {"text": "Tom Hanks <- film.actor <- Forrest Gump -> directed_by -> Robert Zemeckis", "score": 2.5,
                   "score_parts": {"question": 0.5, "memory": 0.91, "total": 2.5}}
    document = {
        "version": 1, "kind": "pipeline-run", "pipeline": "pog", "model": "fake", "store": "memory:",
        "question": {"id": "q3", "text": "who directed Forrest Gump", "topic_entities": []}, "seconds": 0.5,
        "llm_calls": [{"messages": [{"role": "user", "content": "Analyse the question"}], "reply": json.dumps(
            {"topic_entities": [], "split_questions": [], "indicator": "x", "depth": 1}), "prompt_tokens": 10,
            "completion_tokens": 5, "seconds": 0.1}],
        "predictions": ["Robert Zemeckis"], "raw_output": "Sally Field", "retrieved": [], "details": {"source": "kg"},
        "agent": {"events": [
            {"node": "analyse_question", "started": 1.0, "seconds": 0.1,
             "update": {"predicted_depth": 2, "depth_source": "memory", "depth": 2}},
            {"node": "answer_from_paths", "started": 1.2, "seconds": 0.1,
             "update": {"sufficient": True, "llm_answers": ["Sally Field"], "source": "kg",
                        "answers": ["Robert Zemeckis"], "answer_path": path_update}}]},
        "error": None,
    }
    return write_trace(path, document)


def row(qid: str, question: str, prediction: list[str], gold: list[str], *, trace: Path | None = None,
        hops: str = "1", seconds: float = 1.0, calls: int = 2, path: str | None = None, error: str | None = None,
        raw: str | None = None) -> dict:
    """A results row as `kgqa eval --out` writes it (a PoG row: the model's names one a
    line, by default those predicted), scored."""
    raw = "\n".join(prediction) if raw is None else raw
    return {"id": qid, "question": question, "meta": {"hops": hops}, "prediction": prediction, "gold": gold,
            **answer_scores(prediction, gold, raw), "coverage": 1.0, "llm_calls": calls, "llm_cache_hits": 0,
            "prompt_tokens": 100 * calls, "completion_tokens": 10, "seconds": seconds, "llm_seconds": seconds / 2,
            "raw_output": raw, "details": {"source": "kg", "answer_path": path, "depth_source": "llm"},
            "error": error, "error_type": "ValueError" if error else None, "trace": str(trace) if trace else None}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two results files of the same six questions: `run` (three traced: right, overruled by
    the paths' structure and wrong, overruled by the memory and right) and `base`."""
    folder, embedder = tmp_path_factory.mktemp("runs"), Embedder()
    traces = folder / "run.traces"
    q1 = traced_run(traces / "q1.json", embedder, "q1", "ans: Ron Howard")
    q2 = traced_run(traces / "q2.json", embedder, "q2", "ans: Tom Hanks")
    q3 = memory_trace(traces / "q3.json")
    predicted = {qid: json.loads(p.read_text())["predictions"] for qid, p in (("q1", q1), ("q2", q2))}
    run_rows = [
        row("q1", DIRECTED, predicted["q1"], GOLD_DIRECTORS, trace=q1, raw="Ron Howard", path="Tom Hanks -> a"),
        row("q2", DIRECTED + " (again)", predicted["q2"], ["Nora Ephron"], trace=q2, raw="Tom Hanks", seconds=4.0,
            path="Tom Hanks -> b"),
        row("q3", "who directed Forrest Gump", ["Robert Zemeckis"], ["Robert Zemeckis"], trace=q3, hops="2",
            raw="Sally Field"),
        row("q4", "what year was Big released", ["1990"], ["1988"], hops="2", seconds=9.0, calls=5),
        row("q5", "who starred in Splash", ["Daryl Hannah"], ["Daryl Hannah"], hops="2"),
        row("q6", "what genre is Cocoon", [], ["Drama"], hops="2", error="ValueError: broken reply", calls=1),
    ]
    base_rows = [
        row("q1", DIRECTED, ["Tom Hanks"], GOLD_DIRECTORS, path="Tom Hanks -> c"),  # wrong: won by run
        row("q2", DIRECTED + " (again)", ["Nora Ephron"], ["Nora Ephron"], path="Tom Hanks -> b"),  # right: lost
        row("q3", "who directed Forrest Gump", ["Robert Zemeckis"], ["Robert Zemeckis"], hops="2", path="old"),
        row("q4", "what year was Big released", ["1984"], ["1988"], hops="2"),
        row("q5", "who starred in Splash", ["Daryl Hannah"], ["Daryl Hannah"], hops="2"),
        row("q7", "only in the base", ["x"], ["x"], hops="2"),
    ]
    run = folder / "run.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in run_rows))
    base = folder / "base.jsonl.gz"  # results/ keeps them gzipped
    base.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in base_rows).encode()))
    return {"run": run, "base": base, "q1": q1, "q2": q2, "q3": q3}


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, list(args), env=env)


def rows_of(html: str) -> dict[str, str]:
    """Each question row of a page's table by its id: the row's classes."""
    return {m.group(2): m.group(1) for m in re.finditer(r"<tr class='([^']*)' data-id='([^']*)'", html)}


def test_the_models_depth_is_read_from_what_the_analysis_recorded() -> None:
    analysed = {"node": "analyse_question", "update": {"depth_source": "structure", "predicted_depth": 3, "model_depth": 1}}
    document = {"agent": {"events": [analysed]}, "llm_calls": [{"reply": '{"depth": 2, "indicator": ""}'}]}
    assert depth_verdict(document) == {"depth": 3, "source": "structure", "model": 1, "overruled": True}


def test_the_trace_page_says_plainly_when_the_model_was_overruled_and_by_what(runs) -> None:
    structure = answer_verdict(json.loads(runs["q2"].read_text()))
    assert structure["status"] == "overruled" and structure["by"] == "structure" and structure["model"] == ["Tom Hanks"]
    page = unescape(trace_page(json.loads(runs["q2"].read_text())))
    assert "The model's own answer was overruled by the paths' structure." in page
    assert "<q class='model-answer'>Tom Hanks</q>" in page and "the model named only what the question names" in page

    memory = json.loads(runs["q3"].read_text())
    assert answer_verdict(memory)["by"] == "memory"
    assert depth_verdict(memory) == {"depth": 2, "source": "memory", "model": 1, "overruled": True}
    page = unescape(trace_page(memory))
    assert "The model's own answer was overruled by the path memory." in page and "memory score 0.91" in page
    assert "The model's search depth was overruled by the path memory.</b> The model said 1 hop" in page

    own = unescape(trace_page(json.loads(runs["q1"].read_text())))
    assert "was overruled" not in own and "The answer is the model's own: <q class='model-answer'>Ron Howard</q>" in own


def test_report_lists_every_question_with_gold_and_links_each_trace_page(runs, tmp_path) -> None:
    page = tmp_path / "out" / "run.html"
    result = invoke("report", str(runs["run"]), "-o", str(page))
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", html)  # self-contained: nothing fetched
    questions = rows_of(html)
    assert list(questions) == ["q1", "q2", "q3", "q4", "q5", "q6"]
    assert [qid for qid, tag in questions.items() if " wrong" in tag] == ["q2", "q4", "q6"]
    assert "overruled" in questions["q2"] and "overruled" in questions["q3"] and "error" in questions["q6"]
    assert "Nora Ephron" in html and "1988" in html  # gold answers, after scoring
    assert "Hits@1 by hops" in html and "id='seconds-histogram'" in html and "id='calls-histogram'" in html
    links = re.findall(r"<td class='question'[^>]*><a href='([^']+)'", html)
    assert links == ["run.pages/q1.html", "run.pages/q2.html", "run.pages/q3.html"]  # relative, beside the page
    q2_page = unescape((page.parent / links[1]).read_text())
    assert "Nora Ephron" not in q2_page  # gold never reaches a trace page
    assert "overruled by the paths' structure" in q2_page


def test_report_of_a_gzipped_file_lands_beside_it_and_a_missing_file_is_a_clear_error(runs, tmp_path) -> None:
    copy = tmp_path / "base.jsonl.gz"
    copy.write_bytes(runs["base"].read_bytes())
    assert invoke("report", str(copy)).exit_code == 0
    assert len(rows_of((tmp_path / "base.html").read_text())) == 6
    missing = invoke("report", str(tmp_path / "nothing.jsonl"))
    assert missing.exit_code == 2 and "does not exist" in " ".join(missing.output.split())  # wrapped to the width


def test_compare_html_marks_won_lost_and_changed_paths(runs, tmp_path) -> None:
    page = tmp_path / "cmp.html"
    result = invoke("compare", str(runs["base"]), str(runs["run"]), "--html", "-o", str(page), "--json")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.stdout)
    assert (compared["won_ids"], compared["lost_ids"], compared["changed_path_ids"]) == (["q1"], ["q2"], ["q1", "q3"])
    html = page.read_text()
    questions = rows_of(html)
    assert list(questions) == ["q1", "q2", "q3", "q4", "q5"]  # shared only; q6 and q7 are each in one run
    assert "won" in questions["q1"].split() and "lost" in questions["q2"].split()
    assert "changed" in questions["q1"].split() and "changed" not in questions["q2"].split()
    assert "both-wrong" in questions["q4"] and "both-right" in questions["q5"]
    assert "<b>1</b><span>won</span>" in html and "<b>1</b><span>lost</span>" in html
    assert "href='cmp.pages/run/q1.html'" in html and (tmp_path / "cmp.pages" / "run" / "q1.html").exists()
    default = invoke("compare", str(runs["base"]), str(runs["run"]), "--html")
    assert default.exit_code == 0 and (runs["run"].parent / "run.vs-base.html").exists()
    two = invoke("compare", str(runs["base"]), str(runs["run"]), str(runs["run"]), "-o", str(page))
    assert two.exit_code == 2 and "one RUN" in " ".join(two.output.split())


def test_eval_writes_the_page_and_trace_pages_hold_no_gold(tmp_path: Path, endpoint) -> None:
    state, url = endpoint
    questions = tmp_path / "qa_dev_1hop.txt"
    questions.write_text("who directed [Movie A]\tPerson B\nwhat year was [Movie A] released\t1999\n")
    state.script = [(200, completion("ans: Person B")), (200, completion("ans: 2001"))]
    env = {"KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_DATA_DIR": str(tmp_path / "data")}
    out = tmp_path / "results.jsonl"
    result = invoke("eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only", "--store",
                    "memory:", "--out", str(out), "--no-cache", env=env)
    assert result.exit_code == 0, result.output
    html = (tmp_path / "results.html").read_text()
    assert len(rows_of(html)) == 2 and "1999" in html and "model scripted" in html
    trace_pages = sorted((tmp_path / "results.pages").glob("*.html"))
    assert len(trace_pages) == 2
    assert all("1999" not in p.read_text() for p in trace_pages)  # the wrong one's gold stays on the report


def test_pages_are_built_from_rows_alone(runs) -> None:
    rows = [json.loads(line) for line in runs["run"].read_text().splitlines()]
    html = run_page(rows, name="x.jsonl", pages=RunPages(), summary={"pipeline": "pog", "model": "m", "store": "s"})
    assert "Evaluation: pog on 6 questions" in html and "<a href" not in html  # no traces: no links
    assert "overruled" in rows_of(html)["q2"]  # PoG rows say what the model answered: overruled without a trace
    assert "Hits@1 by where the answer came from" in html
    by_id = {r["id"]: r for r in rows}
    same = compare_page(by_id, by_id, base_name="a", run_name="b")
    assert not any({"won", "lost"} & set(tag.split()) for tag in rows_of(same).values())
    assert histogram_svg([("all", [0.0, 0.0], "#000")], svg_id="h", unit="s").count("class='hist-bar'") == 1
    assert "class='hist-bar'" not in histogram_svg([("none", [], "#000")], svg_id="h", unit="s")


def test_report_renders_in_chromium_and_filters_to_the_wrong_ones(runs, tmp_path, browser) -> None:
    page_file = tmp_path / "run.html"
    assert invoke("report", str(runs["run"]), "-o", str(page_file)).exit_code == 0
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(page_file.as_uri())
    visible = page.locator("#questions tbody tr:visible")
    assert visible.count() == 6
    box = page.locator("#seconds-histogram").bounding_box()
    assert box and box["width"] > 300 and box["height"] > 100  # drawn, not collapsed
    page.locator("#show-wrong").click()
    assert visible.count() == 3 and page.locator("#shown").inner_text() == "3"
    assert all(" wrong" in (visible.nth(i).get_attribute("class") or "") for i in range(3))
    page.locator("#show-overruled").click()
    assert visible.count() == 2
    page.locator("#show-all").click()
    page.locator("#search").fill("forrest")
    assert visible.count() == 1
    page.locator("#search").fill("")
    page.locator("#group").select_option("2")
    assert visible.count() == 4
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    page.locator("#group").select_option("")
    page.locator("#questions tbody tr[data-id='q2'] td.question a").click()  # the row opens its trace page
    page.wait_for_load_state()
    assert page.url.endswith("run.pages/q2.html")
    assert "overruled by the paths' structure" in page.locator("#verdict").inner_text()
    assert errors == []
    page.close()


def test_compare_page_filters_won_and_lost_in_chromium(runs, tmp_path, browser) -> None:
    page_file = tmp_path / "cmp.html"
    assert invoke("compare", str(runs["base"]), str(runs["run"]), "-o", str(page_file)).exit_code == 0
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.goto(page_file.as_uri())
    visible = page.locator("#questions tbody tr:visible")
    assert visible.count() == 5
    page.locator("#show-lost").click()
    assert visible.count() == 1 and visible.first.get_attribute("data-id") == "q2"
    page.locator("#show-won").click()
    assert visible.count() == 1 and visible.first.get_attribute("data-id") == "q1"
    page.locator("#show-changed").click()
    assert visible.count() == 2
    visible.first.locator("details.path summary").click()
    assert "Tom Hanks -> c" in visible.first.locator("details.path").inner_text()
    shot = tmp_path / "compare.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    page.close()


def test_a_rows_badge_says_why_and_marks_a_fallback() -> None:
    """The browser shows what the answer claims: its source, the rule that gave it (on
    hover) and, where nothing was judged sufficient, that it is a fallback."""
    from kgqa.eval_browser import _answer_by

    row = {"details": {"source": "kg", "answer_reason": "fallback_best_path", "decided_by": "fallback"}}
    badge = _answer_by(row, None)
    assert "title='no path was judged sufficient, so the best path&#x27;s end answers'>kg<" in badge
    assert ">fallback<" in badge
    assert ">fallback<" not in _answer_by({"details": {"source": "kg", "answer_reason": "named_path_end",
                                                       "decided_by": "model"}}, None)
