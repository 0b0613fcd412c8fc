"""One root for every error kgqa raises on purpose, and the command line reporting it once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agent.llm import LLMError, LLMUnavailable
from agent.llm.base import LLMTimeout
from kg_store import ConfigError, InputError, InvalidId, KGQAError, StoreError, StoreUnavailable, open_store
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


def test_an_error_no_command_expected_is_reported_without_a_traceback(endpoint: tuple[Endpoint, str],
                                                                      tmp_path: Path) -> None:
    """GraphRAG-FI's attention filter cannot read an endpoint's weights: `kgqa ask` names
    the conflict and exits 1 (before the error root it died with a traceback)."""
    state, url = endpoint
    state.default = lambda request: (200, completion('{"topic_entities": ["Big"], "depth": 1}'))
    store_url = f"oxigraph:{tmp_path / 'films'}"
    with open_store(store_url) as store:
        store.write(film_batch())
    env = {**os.environ, **env_for(url, tmp_path), "KGQA_POG__FI__FILTER": "true",
           "KGQA_POG__FI__COARSE": "attention", "COLUMNS": "300"}
    done = subprocess.run([sys.executable, "-m", "kgqa.cli", "ask", "who directed Big", "--store", store_url],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 1, said
    assert "error: the attention coarse filter reads the embedded model's weights" in said
    assert "Traceback" not in said
