"""The docs' results pages are rendered from the files in results/, and the check says
where a page disagrees with its files (no server, no model)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kgqa.results_pages import SpecError, Table, check, load_spec, write

ROOT = Path(__file__).resolve().parents[1]
BASE = "results/2026-11-24/pog-metaqa-3hop-base.jsonl.gz"
RUN = "results/2026-11-24/pog-fp-metaqa-3hop.jsonl.gz"
SPEC = f'''
[[table]]
id = "pog-3hop"
page = "results/demo.md"
title = "PoG on MetaQA 3-hop"
data = "labelled"
commands = "kgqa eval ... --out pog-fp-metaqa-3hop.jsonl --json"
rows = [
  {{ label = "3-hop · fuzzy", file = "{BASE}" }},
  {{ label = "3-hop · fuzzy+precise", file = "{RUN}", base = "{BASE}" }},
]
'''
PAGE = "# Demo\n\nHand-written prose stays.\n\n<!-- results: pog-3hop -->\n<!-- /results: pog-3hop -->\n\nMore prose.\n"


def test_the_committed_results_pages_agree_with_their_files() -> None:
    problems = check(ROOT)
    assert not problems, "\n".join(map(str, problems)) + "\nrender the pages: kgqa docs results"


def test_every_results_table_says_whether_it_used_labels() -> None:
    tables = [t for t in load_spec(ROOT / "docs/results/tables.toml") if isinstance(t, Table)]
    assert {t.data for t in tables} == {"zero-shot", "labelled"}
    for table in tables:  # a path memory or a KG-Scout model learnt from gold answers is labelled data
        learnt = "--path-memory" in table.commands and "synth" not in table.commands or "kg-scout" in table.commands
        assert table.data == ("labelled" if learnt else "zero-shot"), table.id


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small repository: one page, one spec, the two results files it names."""
    for file in (BASE, RUN):
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / file, tmp_path / file)
    (tmp_path / "docs/results").mkdir(parents=True)
    (tmp_path / "docs/results/tables.toml").write_text(SPEC)
    (tmp_path / "docs/results/demo.md").write_text(PAGE)
    changed, problems = write(tmp_path)
    assert changed == ["results/demo.md"] and not problems
    return tmp_path


def test_render_fills_the_markers_from_the_files(repo: Path) -> None:
    page = (repo / "docs/results/demo.md").read_text()
    assert page.startswith("# Demo\n\nHand-written prose stays.\n") and page.endswith("More prose.\n")
    assert '!!! warning "Labelled data"' in page
    rows = [line for line in page.splitlines() if line.startswith("| 3-hop")]
    assert rows[0].startswith("| 3-hop · fuzzy | 200 | 0.975 |")
    assert rows[1].startswith("| 3-hop · fuzzy+precise | 200 | 0.725 |") and rows[1].endswith("| 0.975 | 51 / 1 |")
    assert f"'3-hop · fuzzy+precise={RUN}'" in page  # the kgqa table command that remakes the table
    assert check(repo) == []
    assert write(repo) == ([], [])  # a second render changes nothing


def test_the_check_names_the_row_whose_figure_was_edited(repo: Path) -> None:
    page = repo / "docs/results/demo.md"
    page.write_text(page.read_text().replace("| 3-hop · fuzzy+precise | 200 | 0.725 |", "| 3-hop · fuzzy+precise | 200 | 0.730 |"))
    problems = [str(p) for p in check(repo)]
    assert len(problems) == 1
    assert problems[0].startswith("results/demo.md, table pog-3hop, row '3-hop · fuzzy+precise': differs from its file")
    assert "0.730" in problems[0] and "0.725" in problems[0]


def test_the_check_names_a_missing_results_file_and_nothing_is_written(repo: Path) -> None:
    (repo / RUN).unlink()
    problems = [str(p) for p in check(repo)]
    assert f"results/demo.md, table pog-3hop, row '3-hop · fuzzy+precise': {RUN} does not exist" in problems
    before = (repo / "docs/results/demo.md").read_text()
    changed, problems = write(repo)
    assert changed == [] and problems
    assert (repo / "docs/results/demo.md").read_text() == before


def test_the_check_refuses_a_hand_typed_table_and_missing_markers(repo: Path) -> None:
    page = repo / "docs/results/demo.md"
    page.write_text(PAGE.replace("<!-- results: pog-3hop -->\n<!-- /results: pog-3hop -->\n", "")
                    + "\n| run | Hits@1 |\n|---|---:|\n| mine | 0.990 |\n")
    problems = [str(p) for p in check(repo)]
    assert any("no markers for this table" in p for p in problems)
    assert any("a Markdown table outside the generated blocks" in p for p in problems)


def test_a_table_must_say_zero_shot_or_labelled(repo: Path) -> None:
    spec = repo / "docs/results/tables.toml"
    spec.write_text(SPEC.replace('data = "labelled"', 'data = "mixed"'))
    with pytest.raises(SpecError, match="data is 'mixed'"):
        check(repo)


def test_kgqa_docs_results_check_exits_non_zero_naming_the_row(repo: Path) -> None:
    from typer.testing import CliRunner

    from kgqa.cli import app

    runner = CliRunner()
    assert runner.invoke(app, ["docs", "results", "--check", "--root", str(repo)]).exit_code == 0
    page = repo / "docs/results/demo.md"
    page.write_text(page.read_text().replace("| 3-hop · fuzzy | 200 | 0.975 |", "| 3-hop · fuzzy | 200 | 0.985 |"))
    result = runner.invoke(app, ["docs", "results", "--check", "--root", str(repo)])
    assert result.exit_code == 1
    assert "row '3-hop · fuzzy'" in result.output
    result = runner.invoke(app, ["docs", "results", "--root", str(repo)])
    assert result.exit_code == 0 and "rewrote results/demo.md" in result.output
    assert runner.invoke(app, ["docs", "results", "--check", "--root", str(repo)]).exit_code == 0


BENCH_SPEC = """
[[bench]]
id = "sizes"
page = "results/demo.md"
title = "Pooling by size"
file = "results/bench.jsonl"
command = "python bench/path_pooling.py --json > results/bench.jsonl"
pivot = ["search", "triples", "ms_p50"]
where = { data = "metaqa" }

[[bench]]
id = "stores"
page = "results/demo.md"
title = "Stores"
file = "results/stores.jsonl"
command = "python bench/store.py --json > results/stores.jsonl"
columns = [["backend", "backend"], ["hop1 p50 ms", "hop1_p50_ms"], ["load/s", "load_triples_per_s"]]
"""


def test_benchmark_tables_come_from_their_json_lines_and_the_check_catches_an_edit(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results/bench.jsonl").write_text(
        '{"data": "metaqa", "search": "bfs", "triples": 25, "ms_p50": 0.03}\n'
        '{"data": "metaqa", "search": "bfs", "triples": 50, "ms_p50": 0.05}\n'
        '{"data": "other", "search": "bfs", "triples": 25, "ms_p50": 9.9}\n')
    (tmp_path / "results/stores.jsonl").write_text(
        '{"backend": "oxigraph", "hop1_p50_ms": 0.1089, "load_triples_per_s": 108234}\n'
        '{"model": "run facts, not a row"}\n')
    (tmp_path / "docs/results").mkdir(parents=True)
    (tmp_path / "docs/results/tables.toml").write_text(BENCH_SPEC)
    (tmp_path / "docs/results/demo.md").write_text(
        "# Demo\n\n<!-- results: sizes -->\n<!-- /results: sizes -->\n\n<!-- results: stores -->\n<!-- /results: stores -->\n")
    assert write(tmp_path) == (["results/demo.md"], [])
    page = (tmp_path / "docs/results/demo.md").read_text()
    assert "| search | 25 | 50 |" in page and "| bfs | 0.03 | 0.05 |" in page and "9.9" not in page
    assert "| oxigraph | 0.1089 | 108,234 |" in page and "run facts" not in page
    assert "python bench/store.py --json > results/stores.jsonl" in page
    (tmp_path / "docs/results/demo.md").write_text(page.replace("| oxigraph | 0.1089 |", "| oxigraph | 0.0500 |"))
    problems = [str(p) for p in check(tmp_path)]
    assert problems and problems[0].startswith("results/demo.md, table stores, row 'oxigraph': differs from its file")
    (tmp_path / "results/stores.jsonl").unlink()
    assert any("stores.jsonl" in p for p in map(str, check(tmp_path)))
