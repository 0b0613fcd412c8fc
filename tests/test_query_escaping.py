"""What reaches query text: SPARQL terms are escaped or rejected, Cypher types quoted."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from kg_store import InvalidId
from kg_store.falkordb import FalkorDBStore
from kg_store.ids import from_iri, to_iri
from kg_store.neo4j import quote_rel_type
from kg_store.sparql_text import iri, iri_ref, literal, neighbors_queries

NASTY = ['a"b', "a'b", "a\\b", "line\nbreak", "tab\there", "} UNION { ?s ?p ?o", "<x>", "#comment", "日本語 ✓", "`tick`"]


@pytest.mark.parametrize("value", NASTY)
def test_literals_round_trip_through_a_sparql_parser(value: str) -> None:
    store = ox.Store()
    (row,) = store.query(f"SELECT ?v WHERE {{ BIND({literal(value)} AS ?v) }}")
    assert row["v"].value == value


@pytest.mark.parametrize("value", [v for v in NASTY if "\n" not in v and "\t" not in v])
def test_ids_map_to_valid_iris_and_back(value: str) -> None:
    assert from_iri(to_iri(value)) == value
    store = ox.Store()
    (row,) = store.query(f"SELECT ?v WHERE {{ BIND({iri(value)} AS ?v) }}")
    assert from_iri(row["v"].value) == value


def test_freebase_ids_keep_freebase_iris() -> None:
    assert to_iri("m.0abc") == "http://rdf.freebase.com/ns/m.0abc"
    assert to_iri("film.actor.film") == "http://rdf.freebase.com/ns/film.actor.film"
    assert to_iri("Tom Hanks") == "urn:kgqa:Tom%20Hanks"


def test_bad_iris_and_language_tags_are_rejected() -> None:
    with pytest.raises(InvalidId):
        iri_ref("http://x/> } DROP ALL #")
    with pytest.raises(InvalidId):
        literal("x", lang="en } DROP ALL")


def test_a_query_over_nasty_ids_parses_and_keeps_them_as_data() -> None:
    store = ox.Store()
    for query in neighbors_queries([v for v in NASTY if "\n" not in v and "\t" not in v], "both", ["r\"el"], 5):
        assert list(store.query(query)) == []  # parses; matches nothing in an empty store


def test_cypher_relationship_types_are_quoted() -> None:
    assert quote_rel_type("film.actor.film") == "`film.actor.film`"
    assert quote_rel_type("a`b") == "`a``b`"
    falkordb = object.__new__(FalkorDBStore)  # the dialect alone, no server
    with pytest.raises(InvalidId):
        falkordb._rel_type("a`b")
    with pytest.raises(InvalidId):
        quote_rel_type("new\nline")
