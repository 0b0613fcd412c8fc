"""One behaviour, every backend: memory, embedded Oxigraph, Virtuoso (SPARQL), FalkorDB
(through the Neo4j backend over Bolt), and a real Neo4j when NEO4J_URI is set."""

from __future__ import annotations

import pytest

from kg_store import UNNAMED, GraphStore, InvalidId, LoadBatch, Triple
from tests.kg_fixture import (
    ENTITIES,
    HUB_FANS,
    INJECTION_ID,
    INJECTION_NAME,
    N_RELATIONS,
    N_TRIPLES,
    fixture_batch,
)


def rows(store: GraphStore, entity: str, **kw) -> set[tuple[str, str, str | None, str]]:
    hood = store.neighbors([entity], **kw)
    return {(e.relation, e.neighbor, e.neighbor_name, e.direction) for e in hood.edges[entity]}


def test_stats_count_facts_entities_relations(store: GraphStore) -> None:
    stats = store.stats()
    assert (stats.triples, stats.relations) == (N_TRIPLES, N_RELATIONS)
    assert stats.entities == len(ENTITIES)


def test_neighbors_both_directions_with_names_and_unnamed_cvt(store: GraphStore) -> None:
    assert rows(store, "m.cvt1") == {
        ("film.actor.film", "m.tom", "Tom Hanks", "in"),
        ("film.performance.film", "m.forrest", "Forrest Gump", "out"),
        ("film.performance.character", "m.forrest_char", "Forrest Gump", "out"),
    }
    (edge,) = store.neighbors(["m.tom"], relations=["film.actor.film"]).edges["m.tom"]
    assert edge.neighbor_name is None and edge.neighbor_label == UNNAMED


def test_neighbors_batched_keeps_every_requested_id(store: GraphStore) -> None:
    ids = ["m.tom", "m.forrest", "m.nobody", "m.drama"]
    hood = store.neighbors(ids)
    assert list(hood.edges) == ids
    assert hood.edges["m.nobody"] == []
    assert {e.neighbor for e in hood.edges["m.drama"]} == {"m.forrest", "m.amelie", INJECTION_ID}
    assert all(e.source == sid for sid, es in hood.edges.items() for e in es)


def test_direction_and_relation_filters(store: GraphStore) -> None:
    assert rows(store, "m.forrest", direction="in") == {("film.performance.film", "m.cvt1", None, "in")}
    assert rows(store, "m.forrest", direction="out") == {
        ("film.film.directed_by", "m.zemeckis", "Robert Zemeckis", "out"),
        ("film.film.genre", "m.drama", "Drama", "out"),
    }
    assert rows(store, "m.forrest", relations=["film.film.genre"]) == {("film.film.genre", "m.drama", "Drama", "out")}


def test_schema_relations_and_literals_are_not_neighbours(store: GraphStore) -> None:
    relations = {r for r, *_ in rows(store, "m.forrest")}
    assert not any(r.startswith(("type.", "common.")) for r in relations)
    assert all(n.startswith("m.") for _, n, _, _ in rows(store, "m.tom"))  # the birth date is not a node
    assert store.attributes(["m.tom"])["m.tom"] == [("people.person.date_of_birth", "1956-07-09")]


def test_hub_cap_truncates_and_reports(store: GraphStore) -> None:
    hood = store.neighbors(["m.usa", "m.tom"], limit_per_entity=5)
    assert len(hood.edges["m.usa"]) == 5
    assert hood.truncated == {"m.usa"}
    uncapped = store.neighbors(["m.usa"])
    assert len(uncapped.edges["m.usa"]) == HUB_FANS + 1 and not uncapped.truncated


def test_names_prefer_english_and_unknown_is_none(store: GraphStore) -> None:
    assert store.names(["m.amelie", "m.cvt1", "m.unknown", INJECTION_ID]) == {
        "m.amelie": "Amélie",
        "m.cvt1": None,
        "m.unknown": None,
        INJECTION_ID: INJECTION_NAME,
    }


def test_search_exact_normalised_prefix_contains(store: GraphStore) -> None:
    exact = store.search_entities("Forrest Gump")
    assert {m.id for m in exact[:2]} == {"m.forrest", "m.forrest_char"}
    assert all(m.match == "exact" for m in exact[:2])
    assert [(m.id, m.match) for m in store.search_entities("amelie")][:1] == [("m.amelie", "normalized")]
    prefix = store.search_entities("robert zem")
    assert prefix[0].id == "m.zemeckis" and prefix[0].match == "prefix"
    contains = store.search_entities("States of")
    assert contains[0].id == "m.usa" and contains[0].match == "contains"
    assert store.search_entities("no such entity anywhere") == []
    assert store.search_entities("   ") == []


def test_an_exact_name_beats_a_name_that_only_normalises_to_it(store: GraphStore) -> None:
    # MetaQA tags films with actors' names in lower case: "Tom Hanks" the person is exact,
    # the tag "tom hanks" only normalised, on every backend.
    found = [(m.id, m.match, m.score) for m in store.search_entities("Tom Hanks")]
    assert found[:2] == [("m.tom", "exact", 1.0), ("m.tag_tom", "normalized", 0.9)]
    assert [(m.id, m.match) for m in store.search_entities("tom hanks")][:1] == [("m.tag_tom", "exact")]


def test_search_exact_only(store: GraphStore) -> None:
    assert store.search_entities("robert zem", partial=False) == []


def test_subgraph_two_hops_with_caps(store: GraphStore) -> None:
    sub = store.subgraph(["m.tom"], hops=2, max_degree=10)
    triples = set(sub.triples)
    assert Triple("m.tom", "film.actor.film", "m.cvt1") in triples
    assert Triple("m.cvt1", "film.performance.film", "m.forrest") in triples  # second hop through the CVT
    assert Triple("m.forrest", "film.film.genre", "m.drama") not in triples  # that is hop 3
    assert "m.usa" in sub.capped_entities  # the hub was cut at 10 and not expanded
    assert sub.names["m.tom"] == "Tom Hanks" and sub.names["m.cvt1"] is None
    small = store.subgraph(["m.tom"], hops=2, max_degree=None, max_edges=3)
    assert len(small.triples) == 3 and small.truncated


def test_writes_are_idempotent(store: GraphStore) -> None:
    before = store.stats()
    store.write(fixture_batch())
    assert store.stats() == before
    assert len(store.neighbors(["m.cvt1"]).edges["m.cvt1"]) == 3


def test_injection_ids_and_names_are_data_not_code(store: GraphStore) -> None:
    assert rows(store, INJECTION_ID) == {
        ("film.film.genre", "m.drama", "Drama", "out"),
        ("related to", "Plain Name Entity", "Plain Name Entity", "in"),
    }
    assert [m.id for m in store.search_entities(INJECTION_NAME)][:1] == [INJECTION_ID]
    assert store.search_entities('"} UNION { ?s ?p ?o } #') == []
    assert store.neighbors(['m.tom"} ?s ?p ?o {"']).edges == {'m.tom"} ?s ?p ?o {"': []}
    assert store.stats().triples == N_TRIPLES  # nothing was deleted or added on the way


@pytest.mark.parametrize("bad", ["", "a\nb", "x\x00y"])
def test_invalid_ids_are_rejected(store: GraphStore, bad: str) -> None:
    with pytest.raises(InvalidId):
        store.neighbors([bad])


def test_unicode_round_trip(empty_store: GraphStore) -> None:
    empty_store.write(LoadBatch(triples=[Triple("Ōkubo 大久保", "lives in", "東京")], names=[("東京", "東京")]))
    (edge,) = empty_store.neighbors(["Ōkubo 大久保"]).edges["Ōkubo 大久保"]
    assert (edge.relation, edge.neighbor, edge.neighbor_name) == ("lives in", "東京", "東京")
    assert empty_store.search_entities("東京")[0].id == "東京"


def test_relation_counts_are_entity_facts_without_schema(store: GraphStore) -> None:
    counts = store.relation_counts()
    assert counts["people.person.nationality"] == HUB_FANS + 1
    assert counts["film.film.genre"] == 3 and counts["related to"] == 1
    # schema relations and literal attributes (the birth date, names) are not facts between entities
    assert not any(r.startswith(("type.", "common.")) for r in counts)
    assert "people.person.date_of_birth" not in counts


def test_entities_with_a_relation_by_direction(store: GraphStore) -> None:
    assert set(store.entities_with("film.film.genre", "out")) == {"m.forrest", "m.amelie", INJECTION_ID}
    assert store.entities_with("film.film.genre", "in") == ["m.drama"]
    fans = store.entities_with("people.person.nationality", "out", limit=5)
    assert len(fans) == 5 and len(set(fans)) == 5
    assert fans == store.entities_with("people.person.nationality", "out", limit=5)  # a stable order
    assert store.entities_with("no.such.relation", "out") == []
    assert store.entities_with(INJECTION_ID, "in") == []  # escaped, never pasted into the query
