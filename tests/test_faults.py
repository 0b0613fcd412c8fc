"""Fault injection: a scripted OpenAI-compatible endpoint fails the ways real ones do
(server errors, a refused key, rate limits, an HTML page, a body that is not JSON, a reply
that never comes, a connection closed without one), and `ask`, `eval` and `serve` must
each say what went wrong, lose nothing, and never score a failure as an answer."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.evaluation.harness import exclusive
from agent.llm import LLMError, LLMUnavailable
from agent.llm.openai_compat import OpenAICompatibleClient
from kg_store.base import redact_url
from kgqa.cli import app
from kgqa.cli.common import command_line
from tests.scripted_endpoint import Endpoint, completion

runner = CliRunner()
ERROR = {"error": {"message": "boom"}}

# (fault, what the user is told); every one of them stops a batch run.
ENDPOINT_FAULTS = [
    ((500, ERROR), "answered HTTP 500"),
    ((401, ERROR), "refused the API key"),
    ((429, ERROR), "kept rate-limiting"),
    ("html", "not a chat completion"),
    ("garbage", "not JSON"),
    ("not-chat", "not a chat completion"),
    ("close", "cannot reach"),
]
QUESTIONS = "who directed [Movie A]\tPerson B\nwhat year was [Movie A] released\t1999\nwho wrote [Movie A]\tPerson C\n"


def env_for(url: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_DATA_DIR": str(tmp_path / "data"),
            "KGQA_LLM_CACHE": "false", "KGQA_LLM_MAX_RETRIES": "0", **extra}


def said(result) -> str:
    """What a command printed, as one line (the console wraps long messages)."""
    return " ".join(result.output.split())


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("fault, told", ENDPOINT_FAULTS, ids=[str(f[0]) for f in ENDPOINT_FAULTS])
def test_a_failing_endpoint_is_a_typed_error_that_says_what_failed(endpoint: tuple[Endpoint, str], fault,
                                                                  told: str) -> None:
    state, url = endpoint
    state.script = [fault]
    with pytest.raises(LLMUnavailable, match=told):
        OpenAICompatibleClient(url, "m", max_retries=0).chat([{"role": "user", "content": "x"}])


def test_a_rejected_request_fails_one_question_not_the_endpoint(endpoint: tuple[Endpoint, str]) -> None:
    state, url = endpoint
    state.script = [(400, {"error": {"message": "the prompt is longer than the context"}})]
    with pytest.raises(LLMError, match="HTTP 400") as raised:
        OpenAICompatibleClient(url, "m", max_retries=0).chat([{"role": "user", "content": "x"}])
    assert not isinstance(raised.value, LLMUnavailable)


@pytest.mark.parametrize("fault, told", ENDPOINT_FAULTS, ids=[str(f[0]) for f in ENDPOINT_FAULTS])
def test_eval_stops_on_a_broken_endpoint_and_a_rerun_answers_everything(endpoint: tuple[Endpoint, str],
                                                                       tmp_path: Path, fault, told: str) -> None:
    state, url = endpoint
    questions, out = tmp_path / "qa_dev_1hop.txt", tmp_path / "results.jsonl"
    questions.write_text(QUESTIONS)
    args = ["eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only", "--store", "memory:",
            "--out", str(out), "--json"]
    state.script = [(200, completion("ans: Person B")), fault]
    broken = runner.invoke(app, args, env=env_for(url, tmp_path))
    assert broken.exit_code == 1 and told in said(broken) and "run the same command again" in said(broken)
    assert not isinstance(broken.exception, AssertionError) and "Traceback" not in broken.output
    assert [r["hits1"] for r in rows_of(out)] == [1.0]  # the failure is no row, let alone a wrong answer

    state.default = lambda request: (200, completion("ans: Person C"))  # the endpoint is fixed
    fixed = runner.invoke(app, args, env=env_for(url, tmp_path))
    assert fixed.exit_code == 0, fixed.output
    rows = rows_of(out)
    assert sorted(r["id"] for r in rows) == ["qa_dev_1hop:1", "qa_dev_1hop:2", "qa_dev_1hop:3"]
    assert all(r["error"] is None and r["error_type"] is None for r in rows)
    assert json.loads(fixed.stdout.strip().splitlines()[-1])["hits1"] == round(2 / 3, 4)


def test_timeouts_are_retried_on_rerun_and_leave_one_row_per_question(endpoint: tuple[Endpoint, str],
                                                                      tmp_path: Path) -> None:
    state, url = endpoint
    questions, out = tmp_path / "qa_dev_1hop.txt", tmp_path / "results.jsonl"
    questions.write_text(QUESTIONS)
    args = ["eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only", "--store", "memory:",
            "--out", str(out), "--json"]
    state.hang_seconds = 2.0
    state.script = ["hang", (200, completion("ans: 1999")), "hang"]
    slow = runner.invoke(app, args, env=env_for(url, tmp_path, KGQA_LLM_TIMEOUT="0.3"))
    assert slow.exit_code == 0, slow.output  # two timeouts apart do not stop a run
    assert [(r["error_type"], r["endpoint_failure"]) for r in rows_of(out)] == [
        ("LLMTimeout", True), (None, False), ("LLMTimeout", True)]  # told by type, as they happened

    state.default = lambda request: (200, completion("ans: Person B"))
    again = runner.invoke(app, args, env=env_for(url, tmp_path))
    assert again.exit_code == 0, again.output
    rows = rows_of(out)
    assert len(rows) == 3 and len({r["id"] for r in rows}) == 3  # asked again, not appended twice
    assert [r["error"] for r in rows] == [None, None, None] and len(state.requests) == 5


def answered_all(state: Endpoint, url: str, tmp_path: Path) -> tuple[list[str], Path]:
    """An eval run that answered the three questions: (its command, its results file)."""
    questions, out = tmp_path / "qa_dev_1hop.txt", tmp_path / "results.jsonl"
    questions.write_text(QUESTIONS)
    args = ["eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only", "--store", "memory:",
            "--out", str(out), "--json"]
    state.script = [(200, completion("ans: Person B"))] * 3
    assert runner.invoke(app, args, env=env_for(url, tmp_path)).exit_code == 0
    state.requests.clear()
    return args, out


def test_rows_a_broken_endpoint_left_before_error_types_are_asked_again(endpoint: tuple[Endpoint, str],
                                                                         tmp_path: Path) -> None:
    state, url = endpoint
    args, out = answered_all(state, url, tmp_path)
    first, second, _ = (
        {key: value for key, value in row.items() if key != "endpoint_failure"} for row in rows_of(out))
    legacy = {**first, "hits1": 0.0, "prediction": [], "error_type": None,  # as written before error types
              "error": "LLMError: http://x/v1 answered HTTP 500: Error code: 500 - boom"}
    own = {**second, "hits1": 0.0, "error": "ValueError: the question's own failure", "error_type": "ValueError"}
    out.write_text(json.dumps(legacy) + "\n" + json.dumps(own) + "\n")
    state.default = lambda request: (200, completion("ans: Person B"))
    result = runner.invoke(app, args, env=env_for(url, tmp_path))
    assert result.exit_code == 0, result.output
    rows = {r["id"]: r for r in rows_of(out)}
    assert len(state.requests) == 2 and len(rows) == 3  # questions 1 and 3; question 2's own failure stays
    assert rows["qa_dev_1hop:1"]["hits1"] == 1.0 and rows["qa_dev_1hop:2"]["error"].startswith("ValueError")


def test_a_torn_last_line_is_dropped_and_its_question_answered(endpoint: tuple[Endpoint, str], tmp_path: Path) -> None:
    state, url = endpoint
    args, out = answered_all(state, url, tmp_path)
    lines = out.read_text().splitlines(keepends=True)
    out.write_text(lines[0] + lines[1][:40])  # a crash in the middle of writing the second row
    state.default = lambda request: (200, completion("ans: 1999"))
    result = runner.invoke(app, args, env=env_for(url, tmp_path))
    assert result.exit_code == 0, result.output
    rows = rows_of(out)  # every line parses
    assert [r["id"] for r in rows] == ["qa_dev_1hop:1", "qa_dev_1hop:2", "qa_dev_1hop:3"]
    assert rows[1]["hits1"] == 1.0 and json.loads(result.stdout.strip().splitlines()[-1])["n"] == 3


def test_a_results_file_in_use_is_refused(endpoint: tuple[Endpoint, str], tmp_path: Path) -> None:
    state, url = endpoint
    questions, out = tmp_path / "qa_dev_1hop.txt", tmp_path / "results.jsonl"
    questions.write_text(QUESTIONS)
    args = ["eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only", "--store", "memory:",
            "--out", str(out)]
    with exclusive(out):  # another run holds it
        refused = runner.invoke(app, args, env=env_for(url, tmp_path))
    assert refused.exit_code == 1 and "being written by another run" in refused.output
    assert state.requests == [] and not out.exists()
    state.default = lambda request: (200, completion("ans: Person B"))
    assert runner.invoke(app, args, env=env_for(url, tmp_path)).exit_code == 0  # free again
    assert len(rows_of(out)) == 3 and not out.with_name("results.jsonl.lock").exists()


def test_eval_usage_errors_are_one_line(tmp_path: Path) -> None:
    questions = tmp_path / "qa_dev_1hop.txt"
    questions.write_text(QUESTIONS)
    base = ["eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only", "--store", "memory:"]
    zero = runner.invoke(app, [*base, "--concurrency", "0"])
    assert zero.exit_code == 2 and "concurrency" in zero.output
    folder = runner.invoke(app, [*base, "--out", str(tmp_path)])
    assert folder.exit_code == 2 and "--out is a folder" in folder.output


@pytest.mark.parametrize("fault, told", [*ENDPOINT_FAULTS, ("hang", "no reply within")],
                         ids=[str(f[0]) for f in ENDPOINT_FAULTS] + ["hang"])
def test_ask_says_what_the_endpoint_did(endpoint: tuple[Endpoint, str], tmp_path: Path, fault, told: str) -> None:
    state, url = endpoint
    kb = tmp_path / "kb.txt"
    kb.write_text("Movie A|directed_by|Person B\n")
    store = f"oxigraph:{tmp_path / 'store'}"
    assert runner.invoke(app, ["load", "-f", "metaqa", str(kb), "--store", store]).exit_code == 0
    state.default, state.hang_seconds = (lambda request: fault), 2.0
    result = runner.invoke(app, ["ask", "who directed Movie A", "--store", store],
                           env=env_for(url, tmp_path, KGQA_LLM_TIMEOUT="0.5"))
    assert result.exit_code == 1 and told in said(result)
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("url, secret", [
    ("sparql+http://dba:S3cret@db.example:8890/sparql?graph=urn:x", "S3cret"),
    ("sparql+http://dba:p@ss@word@db.example:8890/sparql", "ss@word"),
    ("bolt://neo4j:hunter2@127.0.0.1:7687", "hunter2"),
])
def test_passwords_never_reach_a_report_or_a_message(url: str, secret: str, monkeypatch: pytest.MonkeyPatch) -> None:
    redacted = redact_url(f"cannot reach {url}: refused")
    assert secret not in redacted and ":***@" in redacted and "refused" in redacted
    monkeypatch.setattr(sys, "argv", ["kgqa", "eval", "--store", url, "--out", "r.jsonl"])
    line = command_line()
    assert secret not in line and shlex.split(line)[3] == redact_url(url) and url.split("@")[-1] in line
    unreachable = runner.invoke(app, ["store", "stats", "--store", url.replace("db.example:8890", "127.0.0.1:9")])
    assert unreachable.exit_code == 1 and secret not in said(unreachable)


@pytest.mark.server  # a `kgqa serve` process of its own
def test_serve_survives_dropped_streams_and_stops_on_the_first_sigterm(endpoint: tuple[Endpoint, str],
                                                                      tmp_path: Path) -> None:
    import httpx

    state, url = endpoint
    kb = tmp_path / "kb.txt"
    kb.write_text("Movie A|directed_by|Person B\n")
    store = f"oxigraph:{tmp_path / 'store'}"
    assert runner.invoke(app, ["load", "-f", "metaqa", str(kb), "--store", store]).exit_code == 0
    state.delay = 1.0  # a slow endpoint: a client can leave in the middle of a turn
    state.default = lambda request: (200, completion("ans: Person B"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "kgqa.cli", "serve", "--store", store, "--port", str(port)],
                              env={**os.environ, **env_for(url, tmp_path)}, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.5)
        for _ in range(2):
            with httpx.stream("POST", f"{base}/api/chat", json={"message": "who directed Movie A"}, timeout=10) as s:
                next(s.iter_lines())  # the turn has begun; the client leaves
        asked = httpx.post(f"{base}/api/ask", json={"question": "who directed Movie A"}, timeout=60)
        assert asked.status_code == 200 and asked.json()["answers"] == ["Person B"]
        with httpx.stream("POST", f"{base}/api/chat", json={"message": "who directed Movie A"}, timeout=10) as s:
            next(s.iter_lines())
        server.send_signal(signal.SIGTERM)  # with a turn still running
        assert server.wait(timeout=30) is not None
    finally:
        if server.poll() is None:
            server.kill()
            pytest.fail(f"kgqa serve did not stop on SIGTERM: {server.communicate()[1][-2000:]}")


def test_careless_commands_get_one_line_and_a_usage_exit_code(tmp_path: Path) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text("A|r|B\n")
    store = f"oxigraph:{tmp_path / 'store'}"
    assert runner.invoke(app, ["load", "-f", "metaqa", str(kb), "--store", store]).exit_code == 0
    folder = tmp_path / "folder"
    folder.mkdir()
    (tmp_path / "shape.json").write_text('{"version": 1, "question": "not an object"}')
    (tmp_path / "parts.json").write_text('{"version": 1, "question": {"text": "q"}, "agent": {"events": 5}}')
    (tmp_path / "binary.bin").write_bytes(bytes(range(256)))
    cases = [
        (["load", "-f", "fb15k237", str(folder), "--store", "memory:"], "no FB15k-237 split"),
        (["store", "neighbors", "A", "--limit", "0", "--store", store], "--limit"),
        (["store", "neighbors", "A", "--limit", "-5", "--store", store], "--limit"),
        (["store", "search", "A", "--limit", "-1", "--store", store], "--limit"),
        (["trace", "show", str(folder)], "is a folder"),
        (["trace", "show", str(tmp_path / "shape.json")], "wrong shape"),
        (["trace", "show", str(tmp_path / "parts.json")], "does not read"),
        (["trace", "html", str(tmp_path / "parts.json"), "-o", str(tmp_path / "page.html")], "does not read"),
        (["trace", "diff", str(folder), str(tmp_path / "shape.json")], "is a folder"),
        (["compare", str(tmp_path / "binary.bin"), str(kb)], "not a results file"),
        (["compare", str(folder), str(kb)], "is a folder"),
        (["table", str(tmp_path / "binary.bin")], "not a results file"),
    ]
    for args, told in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and told in said(result), (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)


def test_a_load_where_no_line_reads_says_the_format_looks_wrong(tmp_path: Path) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text("Movie A|directed_by|Person B\nMovie C|directed_by|Person D\n")
    wrong = runner.invoke(app, ["load", "-f", "freebase-nt", str(kb), "--store", "memory:"])
    assert wrong.exit_code == 1 and "the format looks wrong" in said(wrong) and "line 1" in said(wrong)
    assert runner.invoke(app, ["load", "-f", "metaqa", str(kb), "--store", "memory:"]).exit_code == 0
