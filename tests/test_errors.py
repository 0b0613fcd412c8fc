"""One root for every error kgqa raises on purpose, and the command line reporting it once."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agent.llm import LLMError, LLMUnavailable
from agent.llm.base import LLMTimeout
from kg_store import ConfigError, InputError, InvalidId, KGQAError, StoreError, StoreUnavailable, open_store
from kgqa.cli import main
from loaders.records import MalformedInput
from tests.pog_fixture import film_batch
from tests.scripted_endpoint import Endpoint, completion
from tests.test_faults import env_for


def test_every_kind_of_error_has_the_one_root() -> None:
    for kind in (ConfigError, InputError, StoreError, StoreUnavailable, InvalidId, LLMError, LLMUnavailable,
                 LLMTimeout, MalformedInput):
        assert issubclass(kind, KGQAError), kind
    # older callers that caught ValueError for bad input still do
    assert issubclass(MalformedInput, ValueError) and issubclass(ConfigError, ValueError)


def test_an_error_no_command_expected_is_reported_without_a_traceback(endpoint: tuple[Endpoint, str], tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """GraphRAG-FI's attention filter cannot read an endpoint's weights: `kgqa ask` names
    the conflict and exits 1 (before the error root it died with a traceback)."""
    state, url = endpoint
    state.default = lambda request: (200, completion('{"topic_entities": ["Big"], "depth": 1}'))
    store_url = f"oxigraph:{tmp_path / 'films'}"
    with open_store(store_url) as store:
        store.write(film_batch())
    for name, value in {**env_for(url, tmp_path), "KGQA_POG__FI__FILTER": "true",
                        "KGQA_POG__FI__COARSE": "attention"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "argv", ["kgqa", "ask", "who directed Big", "--store", store_url])
    with pytest.raises(SystemExit) as exited:
        main()  # the entry point itself, as the `kgqa` script runs it
    captured = capsys.readouterr()
    said = " ".join((captured.out + captured.err).split())
    assert exited.value.code == 1, said
    assert "error: the attention coarse filter reads the embedded model's weights" in said
    assert "Traceback" not in said


def test_a_mention_with_no_letter_or_digit_links_to_nothing() -> None:
    """`kgqa store search '"'` matched the film `$` (both normalise to nothing), and
    `who directed ["]` was answered as from the KG."""
    from kg_store import LoadBatch, Triple
    from kg_store.memory import MemoryStore

    store = MemoryStore()
    store.write(LoadBatch(triples=[Triple("m.dollar", "directed_by", "m.brooks")],
                          names=[("m.dollar", "$"), ("m.brooks", "Richard Brooks")]))
    for text in ('"', "$", "?!", " - "):
        assert store.search_entities(text) == [], text
    assert [m.id for m in store.search_entities("brooks")] == ["m.brooks"]


def test_text_that_is_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    """Bytes a terminal cannot decode reach Python as lone surrogates: `kgqa store search`
    gave a UnicodeEncodeError traceback, and `kgqa ask` blamed the endpoint."""
    import subprocess
    import sys

    for command in (["store", "search", "Big\udca0\udc80", "--store", "memory:"],
                    ["ask", "who directed Big\udca0", "--store", "memory:"]):
        done = subprocess.run([sys.executable, "-m", "kgqa.cli", *command], capture_output=True, text=True,
                              errors="surrogateescape", env={**os.environ, "KGQA_DATA_DIR": str(tmp_path)},
                              timeout=120, check=False)
        assert done.returncode == 2 and "is not valid UTF-8 text" in done.stdout + done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_a_full_disk_during_load_is_one_line_and_the_store_stays_usable(tmp_path: Path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from kg_store.oxigraph import OxigraphStore
    from kgqa.cli import app

    kb = tmp_path / "kb.txt"
    kb.write_text("".join(f"Film {i}|directed_by|Person {i}\n" for i in range(3)))
    store = f"oxigraph:{tmp_path / 'store'}"
    assert CliRunner().invoke(app, ["load", "-f", "metaqa", str(kb), "--store", store]).exit_code == 0
    def full_disk(self: OxigraphStore, batch: object):
        def load() -> None:
            raise OSError(28, "No space left on device")
        return load

    monkeypatch.setattr(OxigraphStore, "prepare_write", full_disk)
    result = CliRunner().invoke(app, ["load", "-f", "metaqa", str(kb), "--store", store])
    said = " ".join(result.output.split())
    assert result.exit_code == 1 and "No space left on device" in said and store in said, said
    assert "Traceback" not in said and "the store keeps every batch written before" in said
    monkeypatch.undo()
    found = CliRunner().invoke(app, ["store", "search", "Film 1", "--store", store])
    assert found.exit_code == 0 and "Film 1" in found.output


def test_results_in_a_folder_that_cannot_be_written_are_a_clear_error(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kgqa.cli import app

    if os.geteuid() == 0:  # root writes anywhere: a path under a file stands in for the read-only folder
        out = tmp_path / "a-file" / "r.jsonl"
        (tmp_path / "a-file").write_text("")
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        out = locked / "r.jsonl"
    questions = tmp_path / "qa_dev_1hop.txt"
    questions.write_text("who directed [Movie A]\tPerson B\n")
    result = CliRunner().invoke(app, ["eval", "--questions", str(questions), "-f", "metaqa", "--pipeline", "llm-only",
                                      "--store", "memory:", "--out", str(out)],
                                env={"KGQA_LLM_BASE_URL": "http://127.0.0.1:9/v1", "KGQA_LLM_MODEL": "m",
                                     "KGQA_DATA_DIR": str(tmp_path / "data")})
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and f"cannot write results to {out}" in said, said
