"""The development KGs of other domains (bench/devkgs): every question's topics and gold
answers are entities of its KG, each chain is one the KG walks, and both parts of the
development split are there to tune on and to report."""

from __future__ import annotations

from pathlib import Path

import pytest

from loaders.questions import read_questions, split_part

DEVKGS = Path(__file__).resolve().parents[1] / "bench" / "devkgs"
SETS = sorted(DEVKGS.glob("*/questions_*.txt"))


def kb_entities(kg: str, shared_data: Path | None) -> set[str] | None:
    if kg == "metaqa-possessive":
        if shared_data is None:
            return None
        lines = (shared_data / "metaqa" / "kb.txt").read_text(encoding="utf-8").splitlines()
        return {e for line in lines for e in line.split("|")[::2]}
    if kg == "freebase-possessive":
        if shared_data is None:
            return None
        import gzip

        with gzip.open(shared_data / "freebase" / "fb15k237_freebase.nt.gz", "rt", encoding="utf-8") as lines:
            return {line.split(" ", 2)[2].rsplit('"', 1)[0].lstrip('"') for line in lines if "type.object.name" in line}
    lines = (DEVKGS / kg / "kb.tsv").read_text(encoding="utf-8").splitlines()
    return {e for line in lines for e in line.split("\t")[::2]}


def test_every_dev_kg_has_chains_of_two_and_three_hops() -> None:
    kinds = {(p.parent.name, p.stem.removeprefix("questions_")) for p in SETS}
    for kg in ("geo", "elements", "languages", "packages", "units"):
        assert {(kg, kind) for kind in ("1hop", "2hop", "3hop", "conj")} <= kinds
    for kg in ("metaqa-possessive", "freebase-possessive"):
        assert {(kg, "2hop"), (kg, "3hop")} <= kinds


@pytest.mark.parametrize("path", SETS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_dev_question_names_entities_of_its_kg_and_has_both_parts(path: Path, request: pytest.FixtureRequest) -> None:
    shared = None
    if path.parent.name.endswith("-possessive"):
        shared = request.getfixturevalue("shared_data")
    entities = kb_entities(path.parent.name, shared)
    question_set = read_questions(path, "metaqa")
    assert len(question_set) >= 40
    for question in question_set.questions:
        assert {t.id for t in question.topic_entities} <= entities, question.text
        gold = set(question_set.gold[question.id].answers)
        assert gold and gold <= entities and not gold & {t.id for t in question.topic_entities}, question.text
    assert {split_part(q) for q in question_set.questions} == {"tune", "report"}


def test_a_dev_kg_with_its_relations_named_as_rdf_vocabularies_name_theirs_reads_the_same_words() -> None:
    """`evaluate.py --relation-names prefixed-camel` renames `official_language` to
    `ex:officialLanguage`: the agent must read the same words from either name, or a user's
    KG in that convention ranks its paths worse (docs/without-labels.md)."""
    import importlib.util

    from agent.pog.candidates import chain_text, relation_naming_words

    spec = importlib.util.spec_from_file_location("devkgs_evaluate", DEVKGS / "evaluate.py")
    evaluate = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(evaluate)  # type: ignore[union-attr]
    for kg in ("geo", "elements", "languages", "packages", "units"):
        built = (DEVKGS / kg / "kb.tsv").read_text(encoding="utf-8")
        renamed = evaluate.renamed_relations(built)
        pairs = {(a.split("\t")[1], b.split("\t")[1]) for a, b in zip(built.splitlines(), renamed.splitlines(), strict=True)}
        assert any("_" in old for old, _ in pairs)
        for old, new in pairs:
            assert new.startswith("ex:") and "_" not in new
            assert relation_naming_words(new) == relation_naming_words(old), (old, new)
            assert chain_text([(new, True), (new, False)]) == chain_text([(old, True), (old, False)])


def test_a_packages_authors_are_people_and_organisations_not_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    """`packages` reads authors from free-text metadata: a list is split, a company keeps
    its "Inc.", an address or "(see AUTHORS)" is no author."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("devkgs_build", DEVKGS / "build.py")
    build = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "devkgs_build", build)  # its dataclasses look their module up
    spec.loader.exec_module(build)  # type: ignore[union-attr]
    assert build.authors_of("Holger Krekel, Bruno Oliveira, Others (See AUTHORS)", "") == ["Holger Krekel", "Bruno Oliveira"]
    assert build.authors_of("", '"Neo4j, Inc." <drivers@neo4j.com>') == ["Neo4j, Inc."]
    assert build.authors_of("Alexandre Gramfort and Tom Dupré", "x@example.org") == ["Alexandre Gramfort", "Tom Dupré"]


def test_the_units_kg_reads_definitions_quantities_groups_and_systems(monkeypatch: pytest.MonkeyPatch) -> None:
    """`units` is parsed from pint's definitions file: a unit is defined from the units its
    expression names (a prefixed one from its unit), by its leading factor, under the
    quantity its section heads; a group's units belong to it, and a system uses groups."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("devkgs_build", DEVKGS / "build.py")
    build = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "devkgs_build", build)
    spec.loader.exec_module(build)  # type: ignore[union-attr]
    kg = build.units_from_definitions("""
kilo- = 1e3 = k-
#### UNITS ####
meter = [length] = m = metre
gram = [mass] = g
# Length
light_year = 9.46e15 * meter = ly
# Mass
metric_ton = 1e3 * kilogram = t = tonne  # a comment
@group Avoirdupois
    pound = 453.59237 * gram = lb
@end
#### CONSTANTS ####
@import constants_en.txt
@system imperial using Avoirdupois
    pound
@end
""")
    facts = set(kg.facts)
    assert {("light year", "reference_unit", "meter"), ("light year", "conversion_multiplier", "9.46e+15"),
            ("light year", "quantity_kind", "Length"), ("light year", "symbol", "ly"),
            ("metric ton", "reference_unit", "kilogram"), ("kilogram", "reference_unit", "gram"),
            ("kilogram", "conversion_multiplier", "1000"), ("kilogram", "symbol", "kg"),
            ("kilogram", "quantity_kind", "Mass"), ("meter", "quantity_kind", "Length"),
            ("pound", "unit_group", "avoirdupois weight"), ("avoirdupois weight", "applicable_system", "imperial system"),
            ("imperial system", "base_unit", "pound")} <= facts
    assert not any(h == "pound" and r == "quantity_kind" for h, r, _ in facts)  # a group's units head no section
