"""Loaders: every format, malformed-line accounting, strict mode, idempotent re-runs."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from kg_store import open_store
from kg_store.memory import MemoryStore
from loaders.load import load_file
from loaders.records import MalformedInput
from loaders.tabular import fb15k_relation

NS = "http://rdf.freebase.com/ns/"
NT_LINES = [
    f'<{NS}m.tom> <{NS}type.object.name> "Tom Hanks"@en .',
    f'<{NS}m.tom> <{NS}type.object.name> "Tom Hanks (fr)"@fr .',
    f"<{NS}m.tom> <{NS}film.actor.film> <{NS}m.cvt1> .",
    f"<{NS}m.cvt1> <{NS}film.performance.film> <{NS}m.forrest> .",
    "# a comment",
    "",
    f'<{NS}m.forrest> <{NS}type.object.name> "Forrest \\"Run\\" Gump \\u00e9"@en .',
    f"<{NS}m.forrest> <{NS}type.object.type> <{NS}film.film> .",
    f'<{NS}m.tom> <{NS}people.person.date_of_birth> "1956-07-09"^^<http://www.w3.org/2001/XMLSchema#date> .',
    f"<{NS}m.tom> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{NS}people.person> .",
    "this is not a triple",
    f"<{NS}m.a> <{NS}r.b.c> <{NS}m.b>",  # no final dot
    f"<{NS}m.zemeckis>\t<{NS}film.director.film>\t<{NS}m.forrest>\t.",  # the Freebase dump's tabs
]


def write(path: Path, lines: list[str], gz: bool = False) -> Path:
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


@pytest.mark.parametrize("gz", [False, True])
def test_freebase_nt_keeps_facts_names_attributes_and_counts_the_rest(tmp_path: Path, gz: bool) -> None:
    path = write(tmp_path / ("fb.nt.gz" if gz else "fb.nt"), NT_LINES, gz)
    store = MemoryStore()
    report = load_file(store, "freebase-nt", path)
    assert (report.triples, report.names, report.attributes) == (3, 2, 1)
    assert report.malformed == 2
    assert [line for line, _ in report.malformed_examples] == [11, 12]
    assert report.skipped == {"non-English literal": 1, "schema relation": 1, "outside the Freebase namespace": 1}
    assert store.names(["m.forrest"]) == {"m.forrest": 'Forrest "Run" Gump é'}
    assert store.attributes(["m.tom"])["m.tom"] == [("people.person.date_of_birth", "1956-07-09")]


def test_strict_mode_fails_at_the_first_malformed_line(tmp_path: Path) -> None:
    path = write(tmp_path / "fb.nt", NT_LINES)
    with pytest.raises(MalformedInput, match=r"fb\.nt:11: not an N-Triples line"):
        load_file(MemoryStore(), "freebase-nt", path, strict=True)


def test_truncated_gzip_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.nt.gz"
    path.write_bytes(gzip.compress(("\n".join(NT_LINES * 50)).encode())[:300])
    with pytest.raises(MalformedInput, match="cannot read file"):
        load_file(MemoryStore(), "freebase-nt", path)


def test_metaqa_names_entities_by_their_ids_and_reports_bad_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "kb.txt", ["Movie A|directed_by|Person B", "broken line", "Movie A|release_year|1999", "a|b"])
    store = MemoryStore()
    report = load_file(store, "metaqa", path)
    assert (report.triples, report.names, report.malformed) == (2, 3, 2)
    assert [n for n, _ in report.malformed_examples] == [2, 4]
    assert {e.neighbor for e in store.neighbors(["Movie A"]).edges["Movie A"]} == {"Person B", "1999"}
    assert store.search_entities("person b")[0].id == "Person B"


def test_tsv_generic(tmp_path: Path) -> None:
    path = write(tmp_path / "kg.tsv", ["alice\tknows\tbob", "bob\tknows\tcarol"])
    store = MemoryStore()
    assert load_file(store, "tsv", path).triples == 2
    assert store.stats().entities == 3


def test_fb15k237_folder_joins_names_and_keeps_cvt_relations(tmp_path: Path) -> None:
    write(tmp_path / "train.txt", ["/m/01\t/people/person/nationality\t/m/02", "/m/03\t/film/actor/film./film/performance/film\t/m/04"])
    write(tmp_path / "valid.txt", ["/m/05\t/people/person/nationality\t/m/02"])
    write(tmp_path / "test.txt", ["/m/06\t/common/topic/webpage\t/m/02", "bad"])
    write(tmp_path / "entity2text.txt", ["/m/01\tAlice", "/m/02\tWonderland"])
    store = MemoryStore()
    report = load_file(store, "fb15k237", tmp_path)
    assert (report.triples, report.names, report.malformed) == (3, 2, 1)
    assert report.skipped == {"schema relation": 1}
    assert {(e.relation, e.neighbor_name) for e in store.neighbors(["m.01"]).edges["m.01"]} == {
        ("people.person.nationality", "Wonderland")
    }
    assert fb15k_relation("/film/actor/film./film/performance/film") == "film.actor.film/film.performance.film"


def test_rog_jsonl_union_of_graphs(tmp_path: Path) -> None:
    path = write(tmp_path / "rog.jsonl", [
        ('{"id": "q1", "question": "?", "answer": ["x"], "q_entity": ["Jamaica"], "graph": '
         '[["Jamaica", "location.country.languages_spoken", "Jamaican English"], ["Jamaica", "common.topic.notable_types", "Country"]]}'),
        ('{"id": "q2", "graph": [["Jamaica", "location.country.languages_spoken", "Jamaican English"], '
         '["Jamaica", "government.x", "m.04j5sk8"], ["only two", "items"]]}'),
        "{not json",
    ])
    store = MemoryStore()
    report = load_file(store, "rog", path)
    assert report.malformed == 2 and report.skipped == {"schema relation": 1}
    assert store.stats().triples == 2  # the repeated triple is stored once
    assert store.names(["m.04j5sk8"]) == {"m.04j5sk8": None}  # a CVT mid gets no name


def test_unknown_format_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown format"):
        load_file(MemoryStore(), "csv", tmp_path)
    with pytest.raises(FileNotFoundError):
        load_file(MemoryStore(), "metaqa", tmp_path / "nope.txt")


BAD_LINES = {  # format: (a file whose second line cannot be stored, what the report says of it)
    "metaqa": (["Movie A|directed_by|Person B", "Movie C\x01|directed_by|Person D", "Movie E|directed_by|Person F"],
               "control character"),
    "tsv": (["Movie A\tdirected_by\tPerson B", "X" * 3000 + "\tdirected_by\tPerson D",
             "Movie E\tdirected_by\tPerson F"], "an id of 3,000 characters"),
    "freebase-nt": ([f"<{NS}m.a> <{NS}film.film.genre> <{NS}m.b> .", f'<{NS}m.a> <{NS}type.object.name> "bad \\uD800 x"@en .',
                     f"<{NS}m.c> <{NS}film.film.genre> <{NS}m.b> ."], "unpaired surrogate"),
    "rog": (['{"graph": [["A", "r", "B"]]}', '{"graph": [["C\\u0007", "r", "D"]]}', '{"graph": [["E", "r", "F"]]}'],
            "control character"),
}


@pytest.mark.parametrize("fmt", list(BAD_LINES))
def test_a_line_that_cannot_be_stored_is_counted_and_its_batch_written(tmp_path: Path, fmt: str) -> None:
    lines, said = BAD_LINES[fmt]
    path = write(tmp_path / "kg.txt", lines)
    store = open_store(f"oxigraph:{tmp_path / 'store'}")
    report = load_file(store, fmt, path)
    assert report.triples == 2 and report.malformed == 1  # both good facts written around the bad one
    assert report.malformed_examples[0][0] == 2 and said in report.malformed_examples[0][1]
    assert store.stats().triples == 2
    with pytest.raises(MalformedInput, match=":2: "):
        load_file(MemoryStore(), fmt, path, strict=True)


def test_surrogate_pairs_escaped_in_n_triples_are_one_character(tmp_path: Path) -> None:
    path = write(tmp_path / "fb.nt", [f'<{NS}m.a> <{NS}type.object.name> "smile \\uD83D\\uDE00"@en .'])
    store = MemoryStore()
    load_file(store, "freebase-nt", path)
    assert store.search_entities("smile \U0001F600")[0].id == "m.a"


def test_reload_into_oxigraph_adds_nothing(tmp_path: Path) -> None:
    path = write(tmp_path / "fb.nt", NT_LINES)
    store = open_store(f"oxigraph:{tmp_path / 'store'}")
    load_file(store, "freebase-nt", path)
    first = store.stats()
    load_file(store, "freebase-nt", path)
    assert store.stats() == first


def test_real_freebase_subset_and_metaqa_kb(shared_data: Path) -> None:
    store = MemoryStore("memory:")  # the reference backend: the loader's counts, not Oxigraph's speed
    report = load_file(store, "freebase-nt", shared_data / "freebase" / "fb15k237_freebase.nt.gz")
    assert report.malformed == 0 and report.names == 14_541
    stats = store.stats()
    assert stats.triples == report.triples == 532_224 - 14_541 - report.skipped["schema relation"]
    hood = store.neighbors(["m.054c1"])  # Michael Jordan, a WebQSP topic entity
    assert any(e.neighbor_name == "University of North Carolina at Chapel Hill" or e.neighbor_name is None
               for e in hood.edges["m.054c1"])
    metaqa = open_store("oxigraph:")
    assert load_file(metaqa, "metaqa", shared_data / "metaqa" / "kb.txt").triples == 129_411
