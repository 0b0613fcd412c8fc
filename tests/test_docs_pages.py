"""The docs are a manual: each page short enough to read (what a thing does, how to use it,
its current figures, its limits), the history of how a figure moved kept in commits."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
MAX_LINES = 300


def test_every_page_is_at_most_300_lines() -> None:
    pages = [p for p in DOCS.rglob("*.md") if "reference" not in p.parts]  # the CLI reference is generated
    assert pages
    long = {str(p.relative_to(DOCS)): n for p in pages if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, long
