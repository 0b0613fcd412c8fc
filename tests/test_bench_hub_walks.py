"""`bench/hub_walks.py`: the questions whose walks a capped hub's missing relations change."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from loaders.questions import read_questions

ROOT = Path(__file__).resolve().parent.parent
# Tom Hanks has five films through three relations: a cap of 2 keeps at most two of them.
KB = """Big|starred_actors|Tom Hanks
Splash|starred_actors|Tom Hanks
Cast Away|starred_actors|Tom Hanks
That Thing You Do|directed_by|Tom Hanks
Larry Crowne|written_by|Tom Hanks
Big|directed_by|Penny Marshall
"""
QUESTIONS = """what films did [Tom Hanks] direct\tThat Thing You Do
who directed [Big]\tPenny Marshall
"""


def test_only_the_walks_through_a_capped_hub_with_more_relations_differ(tmp_path: Path) -> None:
    (tmp_path / "kb.txt").write_text(KB)
    (tmp_path / "qa_dev_1hop.txt").write_text(QUESTIONS)
    store = f"oxigraph:{tmp_path / 'store'}"
    subprocess.run([sys.executable, "-m", "kgqa", "load", str(tmp_path / "kb.txt"), "-f", "metaqa", "--store", store],
                   check=True, capture_output=True)
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "hub_walks.py"), "--questions",
                           str(tmp_path / "qa_dev_1hop.txt"), "-f", "metaqa", "--store", store, "--limit", "2", "--json"],
                          check=True, capture_output=True, text=True)
    report = json.loads(done.stdout)
    hub_question = read_questions(tmp_path / "qa_dev_1hop.txt", "metaqa").questions[0]
    assert (report["selected"], report["walks_differ"]) == (2, 1)  # Big has two edges: never capped
    assert report["differ"] == [{"id": hub_question.id, "question": hub_question.text}]
