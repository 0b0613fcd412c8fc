"""One root for every error kgqa raises on purpose, and the command line reporting it once."""

from __future__ import annotations

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
