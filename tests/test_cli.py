"""The kgqa command line as a user drives it: JSON outputs, exit codes, clear errors."""

from __future__ import annotations

import gc
import gzip
import itertools
import json
import re
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg_store.oxigraph import OxigraphStore
from kgqa.cli import app
from tests.scripted_endpoint import completion

runner = CliRunner()


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    path = tmp_path / "kb.txt"
    path.write_text("Movie A|directed_by|Person B\nMovie A|starred_actors|Person C\nMovie D|directed_by|Person B\n")
    return path


def invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), env=env)


def test_load_stats_neighbors_search_json(kb: Path, tmp_path: Path) -> None:
    url = f"oxigraph:{tmp_path / 'store'}"
    loaded = invoke("load", "--format", "metaqa", str(kb), "--store", url, "--json")
    assert loaded.exit_code == 0, loaded.output
    assert json.loads(loaded.stdout)["triples"] == 3
    stats = invoke("store", "stats", "--store", url, "--json")
    assert json.loads(stats.stdout) == {"triples": 3, "entities": 4, "relations": 2}
    hood = json.loads(invoke("store", "neighbors", "Person B", "--store", url, "--json").stdout)
    assert hood[0]["id"] == "Person B"
    assert {(n["relation"], n["id"], n["direction"]) for n in hood[0]["neighbors"]} == {
        ("directed_by", "Movie A", "in"), ("directed_by", "Movie D", "in")
    }
    found = json.loads(invoke("store", "search", "person", "--store", url, "--json").stdout)
    assert {m["id"] for m in found} == {"Person B", "Person C"}


def test_store_neighbors_shows_an_rdf_graphs_literals_when_asked(tmp_path: Path) -> None:
    ttl = tmp_path / "people.ttl"
    ttl.write_text('@prefix ex: <http://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n'
                   'ex:ada rdfs:label "Ada Lovelace" ; ex:birthDate "1815-12-10" ; ex:bornIn ex:london .\n'
                   'ex:london rdfs:label "London" .\n')
    url = f"oxigraph:{tmp_path / 'store'}"
    assert invoke("load", "-f", "rdf", str(ttl), "--store", url).exit_code == 0
    ada = "http://example.org/ada"
    plain = json.loads(invoke("store", "neighbors", ada, "--store", url, "--json").stdout)[0]["neighbors"]
    assert [(n["relation"], n["name"], n["literal"]) for n in plain] == [("http://example.org/bornIn", "London", False)]
    shown = json.loads(invoke("store", "neighbors", ada, "--values", "--store", url, "--json").stdout)[0]["neighbors"]
    assert ("http://example.org/birthDate", "1815-12-10", True) in {(n["relation"], n["name"], n["literal"]) for n in shown}
    table = invoke("store", "neighbors", ada, "--values", "--store", url).stdout
    assert '"1815-12-10"' in table and "\x1f" not in table  # the id column quotes a literal


def test_store_settle_gives_a_store_without_one_its_adjacency_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kg_store.adjacency import ADJACENCY_FILE

    ttl = tmp_path / "people.ttl"
    ttl.write_text('@prefix ex: <http://example.org/> .\nex:ada ex:bornIn ex:london .\n', encoding="utf-8")
    url = f"oxigraph:{tmp_path / 'store'}"
    assert invoke("load", "-f", "rdf", str(ttl), "--store", url).exit_code == 0
    assert not (tmp_path / "store" / ADJACENCY_FILE).exists()  # too small to want one
    monkeypatch.setattr(OxigraphStore, "adjacency_min_bytes", 0)
    settled = invoke("store", "settle", "--store", url, "--json")
    assert settled.exit_code == 0, settled.output
    assert (tmp_path / "store" / ADJACENCY_FILE).is_file()
    hood = json.loads(invoke("store", "neighbors", "http://example.org/ada", "--store", url, "--json").stdout)
    assert [(n["relation"], n["id"]) for n in hood[0]["neighbors"]] == [("http://example.org/bornIn", "http://example.org/london")]


def test_settings_come_from_the_environment(kb: Path, tmp_path: Path) -> None:
    env = {"KGQA_STORE": f"oxigraph:{tmp_path / 'envstore'}"}
    assert invoke("load", "-f", "metaqa", str(kb), env=env).exit_code == 0
    assert json.loads(invoke("store", "stats", "--json", env=env).stdout)["triples"] == 3


def test_strict_load_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("a|b|c\nnot a triple\n")
    result = invoke("load", "-f", "metaqa", str(bad), "--strict", "--store", "memory:")
    assert result.exit_code == 1
    assert "bad.txt:2" in result.output


def test_usage_errors(kb: Path) -> None:
    assert invoke("load", "-f", "csv", str(kb), "--store", "memory:").exit_code == 2
    assert invoke("load", "-f", "metaqa", "/no/such/file", "--store", "memory:").exit_code == 2
    unknown = invoke("store", "stats", "--store", "ftp://example")
    assert unknown.exit_code == 1 and "unknown store URL" in unknown.output
    budget = invoke("eval", "--questions", "/no/such.txt", "-f", "metaqa", "--fi-attention-tokens", "10")
    assert budget.exit_code == 2 and "graphrag_fi.attention_tokens" in budget.output


@pytest.mark.parametrize(
    "url, shown",
    [
        ("sparql+http://127.0.0.1:9/sparql", "http://127.0.0.1:9/sparql"),
        ("bolt://127.0.0.1:9", "bolt://127.0.0.1:9"),
    ],
)
def test_unreachable_store_is_a_clear_error(url: str, shown: str) -> None:
    result = invoke("store", "stats", "--store", url)
    assert result.exit_code == 1
    assert "cannot reach" in result.output and shown in result.output


def test_ask_says_clearly_what_is_wrong(tmp_path: Path) -> None:
    env = {"KGQA_DATA_DIR": str(tmp_path)}
    assert invoke("ask", "who?", "--strategy", "cleverest", env=env).exit_code == 2
    bad_width = invoke("ask", "who?", "--width", "0", env=env)
    assert bad_width.exit_code == 2 and "width" in bad_width.output
    missing = invoke("ask", "who?", "--path-memory", str(tmp_path / "absent.jsonl"), env=env)
    assert missing.exit_code == 2 and "absent.jsonl" in missing.output
    unreachable = invoke("ask", "who?", "--store", "sparql+http://127.0.0.1:9/sparql", env=env)
    assert unreachable.exit_code == 1 and "cannot reach" in unreachable.output
    never_loaded = invoke("ask", "who?", "--store", f"oxigraph:{tmp_path / 'empty'}", env=env)
    assert never_loaded.exit_code == 1 and "kgqa load" in never_loaded.output


def test_memory_build_reports_what_it_learnt_and_resumes(kb: Path, tmp_path: Path) -> None:
    store = f"oxigraph:{tmp_path / 'store'}"
    assert invoke("load", "-f", "metaqa", str(kb), "--store", store).exit_code == 0
    questions = tmp_path / "qa_dev_1hop.txt"
    questions.write_text("who directed [Movie A]\tPerson B\nwho starred in [Movie A]\tPerson C\n"
                         "who directed [Movie D]\tNobody Known\n")
    memory = tmp_path / "memory.jsonl"
    args = ["memory", "build", "--questions", str(questions), "-f", "metaqa", "--store", store, "--out", str(memory),
            "--json"]
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert (report["questions"], report["with_path"]) == (3, 2)
    assert {row["path"] for row in report["top_paths"]} == {"directed_by", "starred_actors"}
    assert "Person B" not in memory.read_text()  # paths, never answers
    before = memory.read_text()
    assert invoke(*args).exit_code == 0 and memory.read_text() == before  # nothing redone
    # a memory that leaves out the near-twins of questions it will be evaluated on
    held_out = tmp_path / "held_out_1hop.txt"
    held_out.write_text("Who directed [Movie A]?\tPerson B\n")
    apart = invoke("memory", "build", "--questions", str(questions), "-f", "metaqa", "--store", store,
                   "--out", str(tmp_path / "apart.jsonl"), "--exclude", str(held_out), "--json")
    assert apart.exit_code == 0, apart.output
    assert (json.loads(apart.stdout)["questions"], json.loads(apart.stdout)["excluded"]) == (2, 1)
    leaky = invoke("memory", "build", "--questions", str(questions), "-f", "metaqa", "--store", store,
                   "--out", str(memory), "--exclude", str(held_out))
    assert leaky.exit_code == 1 and "excluded groups" in leaky.output


def test_memory_synthesize_reads_no_questions_reports_its_cost_and_resumes(kb: Path, tmp_path: Path,
                                                                          endpoint) -> None:
    state, url = endpoint
    store = f"oxigraph:{tmp_path / 'store'}"
    assert invoke("load", "-f", "metaqa", str(kb), "--store", store).exit_code == 0
    def describe(request: dict) -> tuple[int, dict]:  # every other description falls back to templates
        system, asked = request["messages"][0]["content"], request["messages"][-1]["content"]
        if "| directed by |" in asked:
            head = asked.removeprefix("Fact:").split("|")[0].strip()
            return 200, completion(f"the director of {head}" if "noun phrase" in system else f"Who directed {head}?")
        return 200, completion("films")

    state.default = describe
    env = {"KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_DATA_DIR": str(tmp_path / "data"),
           "KGQA_LLM_CACHE": "false"}
    memory = tmp_path / "synth.jsonl"
    args = ["memory", "synthesize", "--store", store, "--out", str(memory), "--per-kind", "5", "--json"]
    result = invoke(*args, env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["entries"] > 0 and report["llm_calls"] == len(state.requests) > 0 and report["minutes"] >= 0
    assert report["sequences_by_depth"]["1"] >= 1  # directed_by (starred_actors has one fact: no pattern)
    entries = [json.loads(line) for line in memory.read_text().splitlines()]
    assert all(e["synthetic"] and "X" in e["question"] for e in entries)
    assert any(e["question"] == "Who directed X" for e in entries)
    asked = len(state.requests)
    again = invoke(*args, env=env)  # resumed from the work file: no model call
    assert again.exit_code == 0 and len(state.requests) == asked and memory.read_text().count("\n") == len(entries)
    other = invoke("memory", "synthesize", "--store", store, "--out", str(memory), "--max-depth", "1", env=env)
    assert other.exit_code == 1 and "other settings" in other.output


def test_train_kg_scout_writes_a_checkpoint_the_scorer_loads(tmp_path: Path) -> None:
    from agent.optional_nodes.kg_scout.training import load_checkpoint

    kb = tmp_path / "kb.txt"
    kb.write_text("".join(f"Movie {m}|directed_by|Director {m}\n" + "".join(
        f"Movie {m}|starred_actors|Actor {m}{a}\n" for a in range(6)) for m in "ABCD"))
    store = f"oxigraph:{tmp_path / 'store'}"
    assert invoke("load", "-f", "metaqa", str(kb), "--store", store).exit_code == 0
    questions = tmp_path / "qa_dev_1hop.txt"
    questions.write_text("".join(f"who directed [Movie {m}]\tDirector {m}\n" for m in "ABCD")
                         + "who directed [Movie A]\tNobody Known\n")
    command = ["train", "kg-scout", "--questions", str(questions), "-f", "metaqa", "--store", store]
    args = [*command, "--k", "3", "--candidates", "20", "--epochs", "3", "--min-epochs", "3", "--patience", "1"]
    model = tmp_path / "scout.pt"
    result = invoke(*args, "--out", str(model), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # The question whose answer is in no fact teaches nothing; the minimum outlasts patience.
    assert (report["questions"], report["used"], report["epochs"]) == (5, 4, 3)
    _, saved = load_checkpoint(model)
    assert saved["trained_on"]["used"] == 4 and saved["config"]["k"] == 3
    assert invoke(*args, "--out", str(tmp_path / "scout.txt")).exit_code == 2
    too_many = invoke(*command, "--k", "50", "--out", str(tmp_path / "big.pt"))
    assert too_many.exit_code != 0 and "nothing to learn from" in too_many.output


@pytest.mark.server
def test_wrong_credentials_are_a_clear_error(virtuoso_url: str, kb: Path) -> None:
    wrong = re.sub(r"//dba:[^@]*@", "//dba:not-the-password@", virtuoso_url)
    assert wrong != virtuoso_url
    result = invoke("load", "-f", "metaqa", str(kb), "--store", wrong)
    assert result.exit_code == 1
    assert "credentials" in result.output and "not-the-password" not in result.output


@pytest.mark.server
def test_a_load_without_credentials_says_so_briefly(virtuoso_url: str, tmp_path: Path) -> None:
    anonymous = re.sub(r"//dba:[^@]*@", "//", virtuoso_url).replace("update=/sparql-auth&", "")
    big = tmp_path / "kb.txt"
    big.write_text("".join(f"Movie {i}|directed_by|Person {i}\n" for i in range(2000)))
    result = invoke("load", "-f", "metaqa", str(big), "--store", anonymous)
    assert result.exit_code == 1 and "no user and password" in result.output
    assert "Movie 1999" not in result.output and len(result.output) < 1500  # not the INSERT text echoed back


def test_reading_a_store_that_was_never_loaded(tmp_path: Path) -> None:
    result = invoke("store", "stats", "--store", f"oxigraph:{tmp_path / 'empty'}")
    assert result.exit_code == 1 and "kgqa load" in result.output
    assert not (tmp_path / "empty").exists()  # a read does not create a store


def test_interrupted_load_keeps_its_batches_and_a_rerun_completes_it(shared_data: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "fb-slice.nt.gz"  # 60,000 lines of the real subset: several batches
    with gzip.open(shared_data / "freebase" / "fb15k237_freebase.nt.gz", "rt") as whole, gzip.open(data, "wt") as part:
        part.writelines(itertools.islice(whole, 60_000))
    url = f"oxigraph:{tmp_path / 'store'}"
    real_prepare = OxigraphStore.prepare_write
    written = []

    def ctrl_c_after_two_batches(store: OxigraphStore, batch):
        load = real_prepare(store, batch)

        def write() -> None:
            if len(written) == 2:
                raise KeyboardInterrupt  # as Ctrl-C would, mid-load; the loader re-raises it in the caller
            load()
            written.append(len(batch))

        return write

    monkeypatch.setattr(OxigraphStore, "write_batch_size", 10_000)
    monkeypatch.setattr(OxigraphStore, "prepare_write", ctrl_c_after_two_batches)
    interrupted = invoke("load", "-f", "freebase-nt", str(data), "--store", url)
    assert interrupted.exit_code == 130 and "run the same command again" in " ".join(interrupted.output.split())
    del interrupted  # its traceback holds the store, and with it Oxigraph's lock: a new process would not
    gc.collect()
    kept = json.loads(invoke("store", "stats", "--store", url, "--json").stdout)["triples"]
    assert 0 < kept < 60_000  # the two batches written before Ctrl-C stay
    monkeypatch.setattr(OxigraphStore, "prepare_write", real_prepare)
    rerun = invoke("load", "-f", "freebase-nt", str(data), "--store", url, "--json")
    assert rerun.exit_code == 0, rerun.output
    stats = json.loads(invoke("store", "stats", "--store", url, "--json").stdout)
    assert stats["triples"] == json.loads(rerun.stdout)["triples"] > kept  # completed, nothing twice


def test_llm_status_reports_an_unreachable_endpoint() -> None:
    env = {"KGQA_LLM_BASE_URL": "http://127.0.0.1:9/v1", "KGQA_LLM_MODEL": "some-model", "KGQA_LLM_MAX_RETRIES": "0"}
    result = invoke("llm", "status", "--probe", "--json", env=env)
    assert result.exit_code == 1
    status = json.loads(result.stdout)
    assert status["mode"] == "endpoint" and status["reachable"] is False
    assert "127.0.0.1:9" in status["error"]


def test_ask_answers_with_evidence_and_writes_the_trace(kb: Path, tmp_path: Path, endpoint) -> None:
    state, url = endpoint
    store = f"oxigraph:{tmp_path / 'store'}"
    assert invoke("load", "-f", "metaqa", str(kb), "--store", store).exit_code == 0
    analysis = json.dumps({"topic_entities": ["Movie A"], "split_questions": [], "indicator": "", "depth": 1})
    state.script = [(200, completion(analysis))] + [(200, completion("ans: Person B"))] * 8
    env = {"KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_DATA_DIR": str(tmp_path / "data"),
           "KGQA_LLM_CACHE": "false"}
    trace = tmp_path / "trace.json"
    result = invoke("ask", "who directed Movie A", "--store", store, "--trace", str(trace), "--json", env=env)
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["answers"] == ["Person B"] and answer["source"] == "kg"
    assert answer["paths"][0]["start"]["id"] == "Movie A" and answer["paths"][0]["answer"]
    assert answer["llm_calls"] == len(state.requests) >= 2
    written = json.loads(trace.read_text())
    assert written["question"]["text"] == "who directed Movie A" and written["predictions"] == ["Person B"]
    assert len(written["llm_calls"]) == answer["llm_calls"]
    shown = invoke("ask", "who directed Movie A", "--store", store, env=env)  # the human-readable form
    assert shown.exit_code == 0 and "Answer: Person B" in shown.output and "Evidence paths" in shown.output
    # a given topic the graph holds nothing about is said to be left out, not dropped in silence
    shown = invoke("ask", "who directed Movie A with Q", "--store", store, "--topic", "Movie A", "--topic", "m.0zzz",
                   env=env)
    assert shown.exit_code == 0 and "Not in the graph, so left out: m.0zzz" in shown.output, shown.output


def test_demo_loads_its_kg_on_first_use_only_and_answers_over_it(tmp_path: Path, endpoint) -> None:
    """The quick start's main job, with a scripted model: the bundled film KG is loaded
    (in a child process, while the agent starts up) on the first run only."""
    state, url = endpoint
    state.script = [(200, completion("ans: Robert Zemeckis"))] * 8
    env = {"KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_DATA_DIR": str(tmp_path),
           "KGQA_LLM_CACHE": "false"}
    first = invoke("demo", "who directed Forrest Gump", env=env)
    assert first.exit_code == 0, first.output
    assert "129,411 facts" in first.output and "Answer: Robert Zemeckis" in first.output
    assert all(f"{step} ready at" in first.output for step in ("store", "model", "embeddings", "path memory"))
    again = invoke("demo", "who directed Forrest Gump", "--json", env=env)
    assert again.exit_code == 0, again.output
    assert "facts" not in again.stderr  # nothing loaded the second time
    answer = json.loads(again.stdout)
    assert answer["answers"] == ["Robert Zemeckis"] and answer["paths"][0]["start"]["id"] == "Forrest Gump"
    in_memory = invoke("demo", "--store", "memory:", env=env)  # it would be loaded into a store that then vanishes
    assert in_memory.exit_code == 2 and "outlives" in in_memory.output


def test_ctrl_c_during_the_agents_imports_is_raised_after_them() -> None:
    """Else pydantic, building a schema at import, turns it into a SchemaError traceback."""
    from agent.assembly.agent import interrupt_deferred

    finished = []
    before = signal.getsignal(signal.SIGINT)  # Python's own, unless an earlier test's code left another
    with pytest.raises(KeyboardInterrupt), interrupt_deferred():
        assert signal.getsignal(signal.SIGINT) is not before  # deferred inside the block
        signal.raise_signal(signal.SIGINT)
        finished.append(True)  # the block runs to its end
    assert finished == [True]
    assert signal.getsignal(signal.SIGINT) is before  # Ctrl-C is what it was again


def test_eval_command_streams_results_reports_and_resumes(tmp_path: Path, endpoint) -> None:
    state, url = endpoint
    questions = tmp_path / "qa_dev_1hop.txt"
    questions.write_text("who directed [Movie A]\tPerson B\nwhat year was [Movie A] released\t1999\n")
    state.script = [(200, completion("ans: Person B")), (200, completion("ans: 2001"))]
    env = {"KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_DATA_DIR": str(tmp_path / "data")}
    out = tmp_path / "results.jsonl"
    args = ["eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only", "--store", "memory:",
            "--out", str(out), "--json"]
    first = invoke(*args, env=env)
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout.strip().splitlines()[-1])
    assert (summary["n"], summary["hits1"], summary["model"]) == (2, 0.5, "scripted")
    assert len(out.read_text().splitlines()) == 2
    assert out.with_suffix(".md").exists() and out.with_suffix(".png").stat().st_size > 0
    again = invoke(*args, env=env)  # everything is done: nothing is asked again
    assert again.exit_code == 0 and len(state.requests) == 2
    assert json.loads(again.stdout.strip().splitlines()[-1]) == summary


def test_eval_shards_run_apart_and_merge_into_one_report(tmp_path: Path, endpoint) -> None:
    state, url = endpoint
    questions = tmp_path / "qa_dev_1hop.txt"
    questions.write_text("who directed [Movie A]\tPerson B\nwhat year was [Movie A] released\t1999\n"
                         "who wrote [Movie A]\tPerson C\n")
    state.script = [(200, completion("ans: Person B")), (200, completion("ans: Person C")),
                    (200, completion("ans: 2001"))]
    env = {"KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_DATA_DIR": str(tmp_path / "data")}
    base = ["eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only", "--store", "memory:",
            "--no-cache", "--json"]
    for shard in ("1/2", "2/2"):
        result = invoke(*base, "--shard", shard, "--out", str(tmp_path / f"part{shard[0]}.jsonl"), env=env)
        assert result.exit_code == 0, result.output
    assert [len((tmp_path / f"part{i}.jsonl").read_text().splitlines()) for i in (1, 2)] == [2, 1]
    merged = tmp_path / "all.jsonl"
    merged.write_text((tmp_path / "part1.jsonl").read_text() + (tmp_path / "part2.jsonl").read_text())
    report = invoke(*base, "--out", str(merged), env=env)  # every question answered: the report only
    assert report.exit_code == 0 and len(state.requests) == 3
    assert json.loads(report.stdout.strip().splitlines()[-1])["n"] == 3
    bad = invoke(*base, "--shard", "3/2", env=env)
    assert bad.exit_code == 2 and "--shard must be I/N" in bad.output
    gzipped = invoke(*base, "--out", str(tmp_path / "all.jsonl.gz"), env=env)
    assert gzipped.exit_code == 2 and "plain JSONL" in gzipped.output


def test_compare_counts_questions_lost_and_won_on_shared_ids(tmp_path: Path) -> None:

    def rows(*hits: tuple[str, float]) -> str:
        return "".join(json.dumps({"id": qid, "hits1": h, "llm_calls": 2, "prompt_tokens": 100, "error": None}) + "\n"
                       for qid, h in hits)

    base = tmp_path / "base.jsonl.gz"  # results/ keeps them gzipped
    base.write_bytes(gzip.compress(rows(("q1", 1.0), ("q2", 1.0), ("q3", 0.0), ("q4", 0.0)).encode()))
    run = tmp_path / "run.jsonl"
    run.write_text(rows(("q1", 1.0), ("q2", 0.0), ("q3", 1.0), ("q5", 1.0)) + '{"id": "q6", "hits1"')  # torn line
    result = invoke("compare", str(base), str(run), "--json")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.stdout)
    assert (compared["n"], compared["shared"], compared["lost_ids"], compared["won_ids"]) == (4, 3, ["q2"], ["q3"])
    assert (compared["hits1"], compared["hits1_shared"], compared["base_hits1_shared"]) == (0.75, 0.6667, 0.6667)
    missing = invoke("compare", str(base), str(tmp_path / "nothing.jsonl"))
    assert missing.exit_code == 2 and "nothing.jsonl does not exist" in " ".join(missing.output.split())


def test_every_command_that_writes_a_file_spells_it_out_the_same_way() -> None:
    import click
    import typer.main

    def commands(group: click.Command, prefix: str = "") -> list[tuple[str, click.Command]]:
        found = [(prefix, group)]
        for name, sub in getattr(group, "commands", {}).items():
            found += commands(sub, f"{prefix} {name}".strip())
        return found

    writers = {name: [p for p in command.params if p.name in ("out_path", "out_dir", "output")]
               for name, command in commands(typer.main.get_command(app))}
    writers = {name: params for name, params in writers.items() if params}
    assert {"eval", "memory build", "memory synthesize", "trace html", "train kg-scout"} <= writers.keys()
    assert all(sorted(p.opts) == ["--out", "-o"] for params in writers.values() for p in params), writers


def test_every_command_that_starts_the_embedded_model_lets_the_user_pick_it() -> None:
    import typer.main

    group = typer.main.get_command(app)
    model_users = {"ask": group.commands["ask"], "demo": group.commands["demo"], "chat": group.commands["chat"],
                   "serve": group.commands["serve"], "eval": group.commands["eval"],
                   "memory synthesize": group.commands["memory"].commands["synthesize"]}
    lacking = [name for name, command in model_users.items()
               if not any("--llm" in p.opts for p in command.params)]
    assert lacking == []


def test_eval_says_when_questions_in_flight_would_queue_at_one_copy_of_the_embedded_model(tmp_path: Path) -> None:
    missing = str(tmp_path / "none.txt")  # fails before any model starts; the note comes first
    env = {"KGQA_DATA_DIR": str(tmp_path / "data"), "KGQA_LLM_BASE_URL": ""}
    queued = invoke("eval", "--questions", missing, "-f", "metaqa", "--concurrency", "2", env=env)
    assert queued.exit_code == 2 and "add --llm-servers 2" in " ".join(queued.output.split())
    for enough in (["--llm-servers", "2"], []):
        ran = invoke("eval", "--questions", missing, "-f", "metaqa", *enough, "--concurrency", "2" if enough else "1",
                     env=env)
        assert ran.exit_code == 2 and "--llm-servers" not in ran.output


def test_ctrl_c_in_a_command_says_interrupted_and_exits_130(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # Typer turns a KeyboardInterrupt into a silent exit 130; `kgqa` says why it stopped.
    import sys

    from kgqa import cli

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.ask, "answer_one", interrupted)
    monkeypatch.setattr(sys, "argv", ["kgqa", "ask", "who directed Big?"])
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 130
    assert "interrupted" in capsys.readouterr().err


def _eval_env(tmp_path: Path, url: str) -> dict[str, str]:
    return {"KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_DATA_DIR": str(tmp_path / "data"),
            "KGQA_LLM_CACHE": "false"}


def test_a_rerun_of_another_pipeline_never_mixes_into_the_same_results(kb: Path, tmp_path: Path, endpoint) -> None:
    """`--pipeline pog --out r.jsonl`, then `--pipeline llm-only --out r.jsonl` summarised
    PoG's and llm-only's rows under one label."""
    state, url = endpoint
    state.default = lambda request: (200, completion("ans: Person B"))
    questions = tmp_path / "qa_dev_1hop.txt"
    questions.write_text("who directed [Movie A]\tPerson B\nwho directed [Movie D]\tPerson B\n")
    store = f"oxigraph:{tmp_path / 'store'}"
    assert invoke("load", "-f", "metaqa", str(kb), "--store", store).exit_code == 0
    out = tmp_path / "r.jsonl"
    base = ["eval", "--questions", str(questions), "-f", "metaqa", "--store", store, "--out", str(out), "--limit", "1"]
    first = invoke(*base, "--pipeline", "pog", env=_eval_env(tmp_path, url))
    assert first.exit_code == 0, first.output
    other = invoke(*base[:-2], "--pipeline", "llm-only", env=_eval_env(tmp_path, url))
    assert other.exit_code == 2 and "holds results of another run" in other.output and "pipeline 'pog'" in other.output
    assert len(out.read_text().splitlines()) == 1  # nothing was added
    preset_changed = invoke(*base, "--pipeline", "pog", "--preset", "paper", env=_eval_env(tmp_path, url))
    assert preset_changed.exit_code == 2 and "preset 'small' -> 'paper'" in preset_changed.output
    forced = invoke(*base[:-2], "--pipeline", "llm-only", "--force", env=_eval_env(tmp_path, url))
    assert forced.exit_code == 0, forced.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 and {row["run"]["pipeline"] for row in rows} == {"llm-only"}


@pytest.mark.parametrize("content", ["my notes about the run\nkeep these\n", "id,question\nq1,who\n",
                                     '{"id": "q1", "hits1": 1}\nnot a row\n{"id": "q2", "hits1": 0}\n'])
def test_eval_never_overwrites_a_file_that_is_not_results(tmp_path: Path, content: str) -> None:
    questions = tmp_path / "qa_dev_1hop.txt"
    questions.write_text("who directed [Movie A]\tPerson B\n")
    out = tmp_path / "notes.jsonl"
    out.write_text(content)
    result = invoke("eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only", "--store",
                    "memory:", "--out", str(out), env={"KGQA_LLM_BASE_URL": "http://127.0.0.1:9/v1",
                                                       "KGQA_LLM_MODEL": "m", "KGQA_DATA_DIR": str(tmp_path)})
    assert result.exit_code == 2 and f"error: {out} is not a results file" in result.output, result.output
    assert out.read_text() == content
    forced = invoke("eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only", "--store",
                    "memory:", "--out", str(out), "--force", env={"KGQA_LLM_BASE_URL": "http://127.0.0.1:9/v1",
                                                                  "KGQA_LLM_MODEL": "m", "KGQA_DATA_DIR": str(tmp_path)})
    assert forced.exit_code == 2 and out.read_text() == content  # --force replaces results, never notes


def test_duplicate_question_ids_are_refused_by_name(tmp_path: Path) -> None:
    """Two WebQSP entries `"ID": "dup"` were both scored against the last one's gold and
    wrote one trace file."""
    questions = tmp_path / "webqsp.json"
    entry = {"ID": "dup", "question": "who directed movie a", "answer": ["Person B"], "q_entity": ["Movie A"]}
    questions.write_text(json.dumps([entry, {**entry, "answer": ["Person C"]}, {**entry, "ID": "ok"}]))
    result = invoke("eval", "--questions", str(questions), "-f", "pog", "--pipeline", "llm-only", "--store", "memory:",
                    "--out", str(tmp_path / "r.jsonl"), env={"KGQA_DATA_DIR": str(tmp_path)})
    assert result.exit_code == 2 and "'dup' is used more than once" in result.output, result.output


def test_ask_shows_a_literal_on_a_path_quoted_never_by_its_control_character() -> None:
    from kg_store.model import value_node
    from kgqa.cli.ask import _with_ids

    sequence = [{"id": "ex:ada", "name": "Ada"}, {"id": value_node("1815-12-10"), "name": "1815-12-10"}]
    assert _with_ids(sequence, [["ex:birthDate", True]]) == 'Ada [ex:ada] -> ex:birthDate -> "1815-12-10"'
