"""Bulk-loader inputs: Virtuoso's ld_dir really loads them; neo4j-admin CSVs are well formed."""

from __future__ import annotations

import csv
import gzip
import shlex
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg_store import open_store
from kg_store.sparql import COUNTED_OVER
from kgqa.cli import app
from loaders.bulk import export_bulk
from tests.test_loaders import NT_LINES, write


def _read_csv(path: str) -> list[list[str]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_neo4j_admin_csvs(tmp_path: Path) -> None:
    src = write(tmp_path / "fb.nt", NT_LINES)
    report = export_bulk("freebase-nt", src, tmp_path / "out", "neo4j-admin", ("type.object.type",))
    read = {Path(f).name: _read_csv(f) for f in report.files}
    assert read["entities-named.csv.gz"][0] == ["id:ID(Entity)", "name", "name_norm", ":LABEL"]
    assert ["m.forrest", 'Forrest "Run" Gump é', "forrest run gump e", "Entity"] in read["entities-named.csv.gz"]
    assert sorted(read["relationships.csv.gz"][1:]) == [
        ["m.cvt1", "m.forrest", "film.performance.film"], ["m.tom", "m.cvt1", "film.actor.film"],
        ["m.zemeckis", "m.forrest", "film.director.film"]]
    assert read["literal-edges.csv.gz"][1][2] == "people.person.date_of_birth"
    assert "--skip-duplicate-nodes=true" in report.commands[0]
    # The named-entity file is listed first so the row with the name wins duplicates.
    assert report.commands[0].index("entities-named") < report.commands[0].index("entities-other")


@pytest.mark.server
def test_virtuoso_ld_dir_loads_the_export(tmp_path: Path, virtuoso_installed: None) -> None:
    from tests.servers.virtuoso import VirtuosoServer

    src = write(tmp_path / "fb.nt", NT_LINES)
    out = tmp_path / "bulk"
    report = export_bulk("freebase-nt", src, out, "virtuoso", ("type.object.type",), chunk_records=2)
    assert len(report.files) >= 2  # chunked
    with VirtuosoServer(tmp_path / "virtuoso", dirs_allowed=[out]) as server:
        server.bulk_load_dir(out, "kgqa-*.nt.gz", graph="urn:kgqa:bulk")
        # the printed name-index step (isql's exec= takes several statements on a line; its stdin, one a line)
        server.isql(report.commands[1].split('exec="', 1)[1].removesuffix('"').replace("; ", ";\n"))
        # the printed settle step, as printed but for the server's password, address and graph
        settle = shlex.split(report.commands[2].replace("PASSWORD", server.password).replace(
            "HOST:8890", f"127.0.0.1:{server.http_port}").replace("urn:kgqa:freebase", "urn:kgqa:bulk"))
        assert settle[:3] == ["kgqa", "store", "settle"]
        assert CliRunner().invoke(app, settle[1:]).exit_code == 0
        user_url = f"sparql+{server.sparql_url}?graph=urn:kgqa:bulk"
        store = open_store(user_url)
        assert store._fact_counts_over() == COUNTED_OVER
        assert store.stats().triples == 4  # three facts and one attribute
        assert store.names(["m.forrest"])["m.forrest"] == 'Forrest "Run" Gump é'
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the free-text index answers: no fallback to a scan
            assert store.search_entities("forrest run")[0].id == "m.forrest"
