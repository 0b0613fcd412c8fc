"""The tests of `bench/` scripts: a MetaQA-format KG loaded with `kgqa load` into an
embedded store, and a script run as its docs show it, its JSON read back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def metaqa_store(tmp_path: Path, kb: str, questions: str, questions_name: str = "qa_dev_1hop.txt") -> tuple[str, Path]:
    """`kb` loaded into an Oxigraph store under `tmp_path`, and `questions` written beside
    it: the store's URL and the questions file."""
    (tmp_path / "kb.txt").write_text(kb)
    questions_path = tmp_path / questions_name
    questions_path.write_text(questions)
    store = f"oxigraph:{tmp_path / 'store'}"
    subprocess.run([sys.executable, "-m", "kgqa", "load", str(tmp_path / "kb.txt"), "-f", "metaqa", "--store", store],
                   check=True, capture_output=True)
    return store, questions_path


def run_bench(script: str, *args: str) -> dict:
    """`python bench/SCRIPT ARGS`, its output read as one JSON object."""
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], check=True, capture_output=True,
                          text=True)
    return json.loads(done.stdout)
