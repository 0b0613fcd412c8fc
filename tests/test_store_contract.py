"""One behaviour, every backend: memory, embedded Oxigraph, Virtuoso (SPARQL), FalkorDB
(through the Neo4j backend over Bolt), and a real Neo4j when NEO4J_URI is set."""

from __future__ import annotations

import gc
import itertools
import random
import socket
import sqlite3
import warnings
from collections import Counter
from contextlib import closing
from pathlib import Path

import pytest

from kg_store import DEFAULT_SCHEMA_PREFIXES, UNNAMED, Attribute, GraphStore, InvalidId, LoadBatch, Triple, open_store
from kg_store import adjacency as adjacency_backend
from kg_store import oxigraph as oxigraph_backend
from kg_store.adjacency import ADJACENCY_FILE
from kg_store.base import EDGES_PER_MISSING_RELATION
from kg_store.ids import from_iri
from kg_store.model import Edge, Neighborhood, is_value_node, value_node
from kg_store.names import SIDE_FILE, NameIndex
from kg_store.oxigraph import RELATIONS_FILE, OxigraphStore
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


def test_literal_values_come_as_edges_to_value_nodes_when_asked(store: GraphStore) -> None:
    birth = ("people.person.date_of_birth", value_node("1956-07-09"), "1956-07-09", "out")
    assert birth in rows(store, "m.tom", values=True)
    assert rows(store, "m.tom", values=True) - {birth} == rows(store, "m.tom")  # the edges as without
    assert birth in rows(store, "m.tom", values=True, relations=["people.person.date_of_birth"])
    assert birth not in rows(store, "m.tom", values=True, relations=["film.actor.film"])
    assert birth not in rows(store, "m.tom", values=True, direction="in")  # a value is no entity's subject
    assert all(e.relation != "type.object.name" for e in store.neighbors(["m.tom"], values=True).edges["m.tom"])


def test_a_value_node_reads_the_entities_holding_its_value_whatever_its_datatype(store: GraphStore) -> None:
    born = value_node("1956-07-09")  # stored as an xsd:date literal; asked by its text alone
    assert rows(store, born, values=True) == {("people.person.date_of_birth", "m.tom", "Tom Hanks", "in")}
    assert rows(store, born, values=True, direction="out") == set()
    assert rows(store, value_node("Tom Hanks"), values=True) == set()  # a name is no value
    assert rows(store, value_node("1956"), values=True) == set()  # nor a part of one
    with pytest.raises(InvalidId):
        store.neighbors([born])  # a value node is no entity id


def test_a_value_held_by_more_entities_than_the_cap_is_capped_as_a_hub(empty_store: GraphStore) -> None:
    empty_store.write(LoadBatch(attributes=[Attribute(f"m.coin{i}", "z.minor_units", "2") for i in range(8)]))
    hood = empty_store.neighbors([value_node("2")], limit_per_entity=3, values=True, every_relation=True)
    assert len(hood.edges[value_node("2")]) == 3 and hood.truncated == {value_node("2")}
    assert len(empty_store.neighbors([value_node("2")], values=True).edges[value_node("2")]) == 8


def test_a_capped_entity_keeps_its_values(empty_store: GraphStore) -> None:
    # the embedded store's scan stops at the cap; the values past it are read apart
    empty_store.write(LoadBatch(
        triples=[Triple("m.city", "a.located_in", f"m.region{i}") for i in range(20)],
        attributes=[Attribute("m.city", "z.population", "2100000")]))
    capped = empty_store.neighbors(["m.city"], limit_per_entity=5, values=True)
    assert capped.truncated == {"m.city"}
    assert [(e.relation, e.neighbor_name) for e in capped.edges["m.city"] if is_value_node(e.neighbor)] == [
        ("z.population", "2100000")]


def test_a_store_without_literals_adds_no_values(empty_store: GraphStore) -> None:
    empty_store.write(LoadBatch(triples=[Triple("m.a", "r.to", "m.b")], names=[("m.a", "A"), ("m.b", "B")]))
    assert rows(empty_store, "m.a", values=True) == {("r.to", "m.b", "B", "out")}


def test_hub_cap_truncates_and_reports(store: GraphStore) -> None:
    hood = store.neighbors(["m.usa", "m.tom"], limit_per_entity=5)
    assert len(hood.edges["m.usa"]) == 5
    assert hood.truncated == {"m.usa"}
    assert set(hood.edges["m.tom"]) == set(store.neighbors(["m.tom"]).edges["m.tom"])  # under the cap: whole
    # An entity whose facts, its name and attributes counted, pass the cap, but not its edges
    assert set(store.neighbors(["m.tom", "m.usa"], limit_per_entity=2).edges["m.tom"]) == set(
        store.neighbors(["m.tom"], limit_per_entity=2).edges["m.tom"])
    uncapped = store.neighbors(["m.usa"])
    assert len(uncapped.edges["m.usa"]) == HUB_FANS + 1 and not uncapped.truncated


def test_a_capped_hub_keeps_a_few_edges_of_every_relation_when_asked(empty_store: GraphStore) -> None:
    # whatever a store's order, a cap of 10 keeps at most 10 of the 42 edges, often divisions only
    triples = [Triple("m.us", "a.country.divisions", f"m.state{i}") for i in range(40)]
    triples += [Triple("m.us", "z.country.form_of_government", "m.republic"), Triple("m.us", "z.country.capital", "m.dc")]
    empty_store.write(LoadBatch(triples=triples, names=[("m.republic", "Republic"), ("m.dc", "Washington")]))
    capped = empty_store.neighbors(["m.us"], direction="out", limit_per_entity=10, every_relation=True)
    relations = Counter(e.relation for e in capped.edges["m.us"])
    assert relations["z.country.form_of_government"] == 1 and relations["z.country.capital"] == 1
    assert {(e.neighbor, e.neighbor_name) for e in capped.edges["m.us"] if e.relation.startswith("z.")} == {
        ("m.republic", "Republic"), ("m.dc", "Washington")}
    both = empty_store.neighbors(["m.dc"], limit_per_entity=10, every_relation=True)  # not capped: as read
    assert [(e.relation, e.neighbor, e.direction) for e in both.edges["m.dc"]] == [("z.country.capital", "m.us", "in")]
    assert 1 <= relations["a.country.divisions"] <= 10 and capped.truncated == {"m.us"}  # still a hub
    plain = empty_store.neighbors(["m.us"], direction="out", limit_per_entity=10)
    assert len(plain.edges["m.us"]) == 10


def test_the_hub_fill_caps_each_direction_of_a_relation_apart(empty_store: GraphStore) -> None:
    """A hub's relation with many facts one way and few the other: at most
    EDGES_PER_MISSING_RELATION the busy way, every fact the quiet way, whichever way a
    backend counts them; a relation it has one way only is not read the other way."""
    triples = [Triple("m.us", "a.country.divisions", f"m.state{i}") for i in range(40)]
    triples += [Triple("m.us", "z.country.city", f"m.city{i}") for i in range(15)]
    triples += [Triple(f"m.town{i}", "z.country.city", "m.us") for i in range(3)]
    triples += [Triple(f"m.person{i}", "z.person.nationality", "m.us") for i in range(12)]
    empty_store.write(LoadBatch(triples=triples, names=[("m.city0", "Boston")]))
    # The fill itself, for a hub whose capped read kept divisions only (which edges a real
    # capped read keeps is the store's order)
    kept = [Edge("m.us", "a.country.divisions", f"m.state{i}", None, "out") for i in range(5)]
    hood = Neighborhood(edges={"m.us": list(kept)}, truncated={"m.us"})
    empty_store._add_missing_relations(hood, "both")
    ways = Counter((e.relation, e.direction) for e in hood.edges["m.us"][len(kept):])
    assert ways == {("z.country.city", "out"): EDGES_PER_MISSING_RELATION, ("z.country.city", "in"): 3,
                    ("z.person.nationality", "in"): EDGES_PER_MISSING_RELATION}
    assert len(set(hood.edges["m.us"])) == len(hood.edges["m.us"])  # no edge twice


def test_a_sparql_store_fills_its_hubs_in_a_few_reads(empty_store: GraphStore) -> None:
    """A remote store pays a round trip a read: three hubs lacking two busy relations each
    are filled by one count of their relations and one capped read a direction, not a
    count and a read per relation and direction; and its sockets ACK at once (a kept-open
    connection to Virtuoso otherwise waits 40 ms on some replies)."""
    from kg_store.sparql import SparqlStore

    if not isinstance(empty_store, SparqlStore):
        pytest.skip("a SPARQL endpoint's reads")
    hubs = ["m.us", "m.fr", "m.de"]
    triples = [Triple(hub, "a.country.divisions", f"m.{hub}{i}") for hub in hubs for i in range(20)]
    triples += [Triple(hub, "z.country.city", f"m.{hub}.city{i}") for hub in hubs for i in range(12)]
    triples += [Triple(f"m.{hub}.person{i}", "z.person.nationality", hub) for hub in hubs for i in range(12)]
    empty_store.write(LoadBatch(triples=triples, names=[]))
    empty_store._fact_counts_over()  # whether the store keeps counts (none: not settled), asked once
    queries: list[str] = []
    select = empty_store._select_rows
    empty_store._select_rows = lambda query: queries.append(query) or select(query)  # type: ignore[method-assign]
    hood = Neighborhood(edges={hub: [] for hub in hubs}, truncated=set(hubs))
    empty_store._add_missing_relations(hood, "both")
    assert len(queries) == 3 and sum("COUNT" in q for q in queries) == 1, queries
    for hub in hubs:
        assert Counter((e.relation, e.direction) for e in hood.edges[hub]) == {
            ("a.country.divisions", "out"): EDGES_PER_MISSING_RELATION, ("z.country.city", "out"): EDGES_PER_MISSING_RELATION,
            ("z.person.nationality", "in"): EDGES_PER_MISSING_RELATION}
    assert empty_store._reader._local.conn.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_a_settled_sparql_store_looks_up_its_hubs_instead_of_counting_their_edges(empty_store: GraphStore) -> None:
    """Counting a hub's edges reads every one of them, longer the bigger the KG: once settled,
    a capped read of many entities looks the hubs up in the counts the store keeps, reads
    the same edges, and the counts are no fact of the KG's (stats, attributes, values). A
    write makes them stale: readers count again until the store is settled again."""
    from kg_store.sparql import COUNTED_OVER, RELATIONS_COUNTED_OVER, SparqlStore

    if not isinstance(empty_store, SparqlStore):
        pytest.skip("a SPARQL endpoint's reads")
    fans = RELATIONS_COUNTED_OVER + 8
    triples = [Triple(f"m.fan{i}", "film.actor.film", "m.hub") for i in range(fans)]
    triples += [Triple("m.hub", "film.film.genre", f"m.genre{i}") for i in range(3)]
    triples += [Triple("m.small", "film.film.genre", "m.genre0")]
    empty_store.write(LoadBatch(triples=triples, names=[("m.hub", "Hub")]))
    ids = ["m.hub", "m.small", "m.fan0"]

    def read() -> tuple[dict, set, list[str]]:
        queries: list[str] = []
        select = empty_store._select_rows
        empty_store._select_rows = lambda query: queries.append(query) or select(query)  # type: ignore[method-assign]
        try:
            hood = empty_store.neighbors(ids, limit_per_entity=COUNTED_OVER)
        finally:
            del empty_store._select_rows
        return {i: sorted(hood.edges[i]) for i in ids}, hood.truncated, queries

    def by_relation(ids: list[str]) -> tuple[list, list[str]]:
        queries: list[str] = []
        select = empty_store._select_rows
        empty_store._select_rows = lambda query: queries.append(query) or select(query)  # type: ignore[method-assign]
        try:
            return sorted(empty_store._relation_degrees_by_way(ids, 11)), queries
        finally:
            del empty_store._select_rows

    counted, counted_truncated, queries = read()
    assert any("COUNT" in q for q in queries)
    degrees = by_relation(["m.hub", "m.small"])[0]
    stats = empty_store.stats()
    empty_store.after_load()
    settled, settled_truncated, queries = read()
    assert not any("COUNT" in q for q in queries), queries
    assert (settled, settled_truncated) == (counted, counted_truncated) and settled_truncated == {"m.hub"}
    # the hub fill's counts a relation: the hub's stored (it is over RELATIONS_COUNTED_OVER), the rest counted
    assert by_relation(["m.hub", "m.small"])[0] == degrees == [
        ("m.hub", "film.actor.film", "in", fans), ("m.hub", "film.film.genre", "out", 3),
        ("m.small", "film.film.genre", "out", 1)]
    assert not any("COUNT" in q for q in by_relation(["m.hub"])[1])
    assert empty_store.stats() == stats
    assert empty_store.attributes(["m.hub"]) == {"m.hub": []} and not empty_store._probe_values()
    assert list(empty_store._holders(str(fans), None)) == []  # the hub's count of in-facts is no value of it
    empty_store.write(LoadBatch(triples=[Triple("m.small", "film.film.genre", "m.genre1")], names=[]))
    assert any("COUNT" in q for q in read()[2])  # stale counts are not trusted


def test_the_hub_fill_reads_few_facts_in_one_go_and_many_once_a_relation() -> None:
    """Three capped hubs lacking two relations of one fact each and one of a dozen: one read
    of the six small pairs (a remote store answers each read in a round trip) and one capped
    read of the large relation for all three, not nine reads."""
    from kg_store.memory import MemoryStore

    reads: list[tuple] = []

    class CountingStore(MemoryStore):
        def _edges_of(self, pairs, direction):
            reads.append(("pairs", tuple(pairs)))
            return super()._edges_of(pairs, direction)

        def _neighbors(self, ids, direction, relations, limit_per_entity):
            if relations and limit_per_entity:  # the capped reads (the pair reads have no cap)
                reads.append(("capped", tuple(ids), tuple(relations)))
            return super()._neighbors(ids, direction, relations, limit_per_entity)

    store = CountingStore()
    hubs = ["m.us", "m.fr", "m.de"]
    triples = [Triple(hub, "a.country.divisions", f"m.{hub}{i}") for hub in hubs for i in range(20)]
    triples += [Triple(hub, relation, f"m.{hub}.{relation}") for hub in hubs
                for relation in ("z.country.capital", "z.country.form_of_government")]
    triples += [Triple(hub, "z.country.city", f"m.{hub}.city{i}") for hub in hubs for i in range(12)]
    store.write(LoadBatch(triples=triples, names=[]))
    capped = store.neighbors(hubs, direction="out", limit_per_entity=5, every_relation=True)
    small = tuple(sorted((hub, r) for hub in hubs for r in ("z.country.capital", "z.country.form_of_government")))
    assert reads == [("pairs", small), ("capped", tuple(sorted(hubs)), ("z.country.city",))]
    for hub in hubs:
        relations = Counter(e.relation for e in capped.edges[hub])
        assert relations == {"a.country.divisions": 5, "z.country.capital": 1, "z.country.form_of_government": 1,
                             "z.country.city": EDGES_PER_MISSING_RELATION}
        assert {e.neighbor for e in capped.edges[hub] if e.relation == "z.country.capital"} == {
            f"m.{hub}.z.country.capital"}


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


def found(store: GraphStore, text: str, **kw) -> list[tuple[str, str]]:
    return [(m.id, m.match) for m in store.search_entities(text, **kw)]


def test_partial_search_matches_tokens_and_their_prefixes(store: GraphStore) -> None:
    # Every query token starts a token of the name, in any order; a query the whole name
    # starts with is a prefix match. Inside a token is no match: an index, not a scan.
    assert set(found(store, "hanks")) == {("m.tom", "contains"), ("m.tag_tom", "contains")}
    assert set(found(store, "tom han")) == {("m.tom", "prefix"), ("m.tag_tom", "prefix")}
    assert set(found(store, "Hanks, Tom")) == {("m.tom", "contains"), ("m.tag_tom", "contains")}
    assert found(store, "zemeckis rob") == [("m.zemeckis", "contains")]
    assert found(store, "united america") == [("m.usa", "contains")]
    assert found(store, "emeckis") == [] and found(store, "tom hanx") == []
    assert found(store, "tom drama") == []  # every token must be there


def test_partial_search_ranks_shorter_names_first(store: GraphStore) -> None:
    assert [m.id for m in store.search_entities("fan", limit=10)] == [f"m.fan{i}" for i in range(10)]
    ranked = found(store, "fan 1", limit=12)
    assert ranked[0] == ("m.fan1", "normalized")
    assert ranked[1:] == [(f"m.fan{i}", "prefix") for i in range(10, 20)]


def test_partial_search_folds_accents_and_case_like_normalize_name(store: GraphStore) -> None:
    assert found(store, "AMEL") == [("m.amelie", "prefix")]
    assert found(store, "Amél") == [("m.amelie", "prefix")]
    assert found(store, "AMÉLIE")[:1] == [("m.amelie", "normalized")]
    assert found(store, "forrest   GUMP!")[:2] == [("m.forrest", "normalized"), ("m.forrest_char", "normalized")]


@pytest.mark.parametrize("text, expected", [
    ('"tom', {"m.tom", "m.tag_tom"}),
    ("tom*", {"m.tom", "m.tag_tom"}),
    ("-tom", {"m.tom", "m.tag_tom"}),
    ("(tom) han?", {"m.tom", "m.tag_tom"}),
    ("hanks\\", {"m.tom", "m.tag_tom"}),
    ("tom AND hanks", set()),  # "and" is a word of the query here, and no name has it
    ("hanks OR drama", set()),
    ("NEAR(tom hanks)", set()),
    ("hanks NOT tom", set()),
    ('"} UNION { ?s ?p ?o } #', set()),
    ("'bif:contains' \"tom*\"", set()),
    ("@name_norm:tom", set()),
    ("tom'); DROP TABLE names; --", set()),
    ('"*"', set()),
    ("*", set()),
    ("AND", set()),
])
def test_partial_search_text_is_data_not_query_syntax(store: GraphStore, text: str, expected: set[str]) -> None:
    # Operators of FTS5, Virtuoso's bif:contains, Lucene and RediSearch, and quotes of
    # SPARQL and SQL: words or nothing, never syntax.
    assert {m.id for m in store.search_entities(text, limit=20)} == expected
    assert store.stats().triples == N_TRIPLES
    assert {m.id for m in store.search_entities("tom han")} == {"m.tom", "m.tag_tom"}  # the index is still there


def test_text_index_queries_quote_or_escape_every_token() -> None:
    """What each backend's text index is asked (the backends above run them for real;
    Neo4j's only with NEO4J_URI)."""
    from kg_store.falkordb import redisearch_query
    from kg_store.names import fts5_query
    from kg_store.neo4j import lucene_query
    from kg_store.sparql_text import virtuoso_text_expr

    assert fts5_query(["tom", 'a"b', "AND", "near"]) == '"tom"* AND "a""b"* AND "AND"* AND "near"*'
    assert lucene_query(["tom", "a:b", "x*", "(y)"]) == r"+(tom OR tom*) +(a\:b OR a\:b*) +(x\* OR x\**) +(\(y\) OR \(y\)*)"
    assert redisearch_query(["tom", "a-b", "@x|y"]) == r"tom* a\-b* \@x\|y*"
    assert virtuoso_text_expr(["tom", "hanks", "x_y", "ha"]) == '"tom" AND "hanks*"'
    assert virtuoso_text_expr(["ha"]) == '"ha"'
    assert virtuoso_text_expr(['a"b', "x*"]) is None


def test_writing_the_same_names_again_indexes_nothing_twice(store: GraphStore) -> None:
    before = [store.search_entities(q, limit=50) for q in ("fan", "forrest", "tom han", "drama")]
    store.write(fixture_batch())
    store.write(LoadBatch(names=[("m.tom", "Tom Hanks"), ("m.tom", "Tom Hanks")]))
    after = [store.search_entities(q, limit=50) for q in ("fan", "forrest", "tom han", "drama")]
    assert after == before
    assert [m.id for m in after[2]].count("m.tom") == 1


def test_degrees_count_entity_facts_both_ways_without_schema(store: GraphStore) -> None:
    ids = ["m.usa", "m.forrest", "m.tom", "m.cvt1", "m.drama", INJECTION_ID, "m.nobody", "m.usa"]
    assert store.degrees(ids) == {
        "m.usa": HUB_FANS + 1,  # every fan's nationality and Tom's
        "m.forrest": 3,  # director, genre, and the performance pointing at it; type and notable type are schema
        "m.tom": 2,  # the birth date is a literal, not a fact between entities
        "m.cvt1": 3,
        "m.drama": 3,
        INJECTION_ID: 2,
        "m.nobody": 0,
    }
    assert store.degrees([]) == {}
    with pytest.raises(InvalidId):
        store.degrees(["x\ny"])


def test_a_server_store_searches_through_its_text_index(store: GraphStore) -> None:
    """The backends with a server use the index they created (no silent full scans)."""
    from kg_store.falkordb import FalkorDBStore
    from kg_store.neo4j import NAME_TEXT_INDEX, Neo4jStore
    from kg_store.sparql import SparqlStore

    if isinstance(store, SparqlStore):
        assert store._has_text_index()
        # The scan kept for endpoints without one answers the same.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for query in ("hanks", "tom han", "states of", "fan 1", "amel", "東"):
                indexed = found(store, query)
                store._text_index, store._warned_scan = False, True
                try:
                    assert found(store, query) == indexed, query
                finally:
                    store._text_index = None
    elif isinstance(store, FalkorDBStore):
        types = {row["label"]: row["types"] for row in store._run("CALL db.indexes() YIELD label, types RETURN label, types")}
        assert "FULLTEXT" in types["Entity"]["name_norm"]
    elif isinstance(store, Neo4jStore):
        names = [row["name"] for row in store._run("SHOW FULLTEXT INDEXES YIELD name RETURN name")]
        assert NAME_TEXT_INDEX in names
    else:
        pytest.skip("an embedded backend: its index is tested below")


# ---- the embedded store's side index ---------------------------------------------------
def reopen(url: str, **kw) -> GraphStore:
    gc.collect()  # Oxigraph lets go of its folder's lock only when the old store object goes
    return open_store(url, **kw)


def test_oxigraph_name_index_is_a_file_beside_the_store_and_survives_reopen(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"oxigraph:{tmp_path / 'kg'}"
    store = open_store(url)
    store.write(fixture_batch())
    store.write(fixture_batch())  # idempotent in the index too
    store.close()
    del store
    side = tmp_path / "kg" / SIDE_FILE
    assert side.is_file()
    index = NameIndex.open(side)
    assert index is not None
    with closing(index):
        assert index.clean and len(index) == len(fixture_batch().names)

    def no_rebuild(*args, **kwargs):
        raise AssertionError("the index was rebuilt although it was there")

    monkeypatch.setattr(NameIndex, "build", no_rebuild)
    for read_only in (False, True):
        store = reopen(url, read_only=read_only)
        assert found(store, "tom han") == [("m.tag_tom", "prefix"), ("m.tom", "prefix")]
        store.close()
        del store


def test_oxigraph_store_without_index_builds_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"oxigraph:{tmp_path / 'kg'}"
    store = open_store(url)
    store.write(fixture_batch())
    store.close()
    del store
    side = tmp_path / "kg" / SIDE_FILE
    side.unlink()  # a store written before the index existed
    builds = []
    real_build = NameIndex.build

    def counted(*args, **kwargs):
        builds.append(args[0])
        return real_build(*args, **kwargs)

    monkeypatch.setattr(NameIndex, "build", counted)
    # A read-only opener adds the missing file beside the store, at its first partial search.
    store = reopen(url, read_only=True)
    assert not side.exists()
    assert found(store, "hanks", limit=3)[0][0] in ("m.tom", "m.tag_tom")
    assert found(store, "zemeckis") == [("m.zemeckis", "contains")]
    assert builds == [side] and side.is_file()
    store.close()
    del store
    store = reopen(url, read_only=True)
    assert found(store, "zemeckis") == [("m.zemeckis", "contains")]
    assert builds == [side]  # not again
    store.close()
    del store
    with closing(sqlite3.connect(side)) as db, db:  # an index of another version: replaced
        db.execute("UPDATE meta SET value = '0' WHERE key = 'version'")
    store = reopen(url, read_only=True)
    assert found(store, "zemeckis") == [("m.zemeckis", "contains")]
    assert builds == [side, side]
    store.close()
    del store


def test_oxigraph_index_left_dirty_by_a_dead_write_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"oxigraph:{tmp_path / 'kg'}"
    store = open_store(url)
    store.write(fixture_batch())
    real_add = NameIndex.add

    def die(self, names):
        raise KeyboardInterrupt  # the store has the names, the index never got them

    monkeypatch.setattr(NameIndex, "add", die)
    with pytest.raises(KeyboardInterrupt):
        store.write(LoadBatch(names=[("m.new", "Brand New Name")]))
    monkeypatch.setattr(NameIndex, "add", real_add)
    store.close()
    del store
    # A reader does not trust it: it searches a rebuild in memory, and says so.
    store = reopen(url, read_only=True)
    with pytest.warns(RuntimeWarning, match="marked incomplete"):
        assert found(store, "brand new") == [("m.new", "prefix")]
    store.close()
    del store
    # The writer rebuilds it on disk, once.
    store = reopen(url)
    assert found(store, "brand new") == [("m.new", "prefix")]
    assert found(store, "tom han") == [("m.tag_tom", "prefix"), ("m.tom", "prefix")]
    store.close()
    del store
    index = NameIndex.open(tmp_path / "kg" / SIDE_FILE)
    assert index is not None
    with closing(index):
        assert index.clean and len(index) == len(fixture_batch().names) + 1


def test_oxigraph_clear_empties_the_index(tmp_path: Path) -> None:
    for url in ("oxigraph:", f"oxigraph:{tmp_path / 'kg'}"):
        store = open_store(url)
        store.write(fixture_batch())
        store.clear()
        assert store.search_entities("tom han") == []
        store.write(LoadBatch(names=[("m.tom", "Tom Hanks")]))
        assert found(store, "tom han") == [("m.tom", "prefix")]
        store.close()
        del store
        gc.collect()



def test_oxigraph_reads_names_from_the_index_and_asks_the_quads_only_for_several(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A walk reads a name for every new neighbour: the embedded store takes it from the
    name index's table of shown names, keyed by id, not from the quads (a random read
    each). An entity with several names is the quads' to choose (English first), as before."""
    url = f"oxigraph:{tmp_path / 'kg'}"
    store = open_store(url)
    store.write(fixture_batch())
    store.write(LoadBatch(triples=[Triple("m.tom", "nickname", "m.twice"), Triple("m.tom", "knows", "m.nameless")],
                          names=[("m.twice", "First Name"), ("m.twice", "Second Name")]))
    store.close()
    del store
    store = reopen(url, read_only=True)
    quad_reads: list[str] = []
    real_name_of = type(store)._name_of

    def counted(self, node):
        quad_reads.append(node.value)
        return real_name_of(self, node)

    monkeypatch.setattr(type(store), "_name_of", counted)
    edges = {e.neighbor: e.neighbor_name for e in store.neighbors(["m.tom"]).edges["m.tom"]}
    assert edges["m.usa"] == "United States of America" and edges["m.cvt1"] is None and edges["m.nameless"] is None
    assert edges["m.twice"] in ("First Name", "Second Name")
    assert [from_iri(i) for i in quad_reads] == ["m.twice"]  # the one with several names, alone
    quad_reads.clear()
    store.forget_entities()
    assert store.names(["m.zemeckis", "m.nameless", "m.twice", "m.zemeckis"]) == {
        "m.zemeckis": "Robert Zemeckis", "m.nameless": None, "m.twice": edges["m.twice"]}
    assert [from_iri(i) for i in quad_reads] == ["m.twice"]
    store.close()
    del store
    # No index to read as it is: the quads answer, and a name read builds none (a minute
    # at millions of names); nor does it trust one a write left incomplete.
    side = tmp_path / "kg" / SIDE_FILE
    with closing(sqlite3.connect(side)) as db, db:
        db.execute("UPDATE meta SET value = 'dirty' WHERE key = 'state'")
    monkeypatch.setattr(NameIndex, "build", lambda *a, **k: pytest.fail("a name read built the index"))
    for _ in range(2):
        store = reopen(url, read_only=True)
        quad_reads.clear()
        assert store.names(["m.zemeckis", "m.twice"]) == {"m.zemeckis": "Robert Zemeckis", "m.twice": edges["m.twice"]}
        assert sorted(from_iri(i) for i in quad_reads) == ["m.twice", "m.zemeckis"]
        store.close()
        del store
        side.unlink(missing_ok=True)  # the second time round: no index at all


def test_oxigraph_reads_names_again_once_told_to_forget_them() -> None:
    """The embedded store remembers the names it read; a change it did not make itself
    (another process's write, to the quads and the name index) shows only after
    `forget_entities`."""
    import pyoxigraph as ox

    from kg_store.ids import NAME_IRI, to_iri

    store = open_store("oxigraph:")
    store.write(LoadBatch(names=[("m.a", "Old name")]))
    assert store.names(["m.a"]) == {"m.a": "Old name"}
    subject, predicate = ox.NamedNode(to_iri("m.a")), ox.NamedNode(NAME_IRI)
    store._store.remove(ox.Quad(subject, predicate, ox.Literal("Old name", language="en")))
    store._store.add(ox.Quad(subject, predicate, ox.Literal("New name", language="en")))
    store._name_index().add([("m.a", "New name")])
    assert store.names(["m.a"]) == {"m.a": "Old name"}  # remembered
    store.forget_entities()
    assert store.names(["m.a"]) == {"m.a": "New name"}


def test_oxigraph_lists_its_relations_in_a_side_file_that_writes_keep(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Listing a store's relations from the store itself scans its predicate index (seconds
    at 20 million facts): the list is kept beside it, written before the facts."""
    url = f"oxigraph:{tmp_path / 'kg'}"
    side = tmp_path / "kg" / RELATIONS_FILE
    store = open_store(url)
    store.write(fixture_batch())
    expected = store.relation_names()
    store.close()
    del store
    assert side.is_file() and "film.film.directed_by" in expected

    def no_scan(query: str):
        raise AssertionError(f"the store was scanned for its relations: {query}")

    store = reopen(url, read_only=True)
    monkeypatch.setattr(store, "_select", no_scan)
    assert store.relation_names() == expected
    store.close()
    del store
    monkeypatch.undo()
    store = reopen(url)
    store.write(LoadBatch(triples=[Triple("m.tom", "people.person.spouse", "m.rita")]))
    assert store.relation_names() == expected | {"people.person.spouse"}
    store.close()
    del store
    side.unlink()  # a store written before the side file existed: read from the store once
    store = reopen(url, read_only=True)
    assert store.relation_names() == expected | {"people.person.spouse"} and side.is_file()
    store.close()
    del store
    store = reopen(url)
    store.clear()
    assert store.relation_names() == set()
    store.close()


def test_oxigraph_fills_a_big_hub_relation_by_relation(empty_store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past DEGREE_ROWS edges a hub's relations are counted one relation at a time, each
    count stopping where the fill stops asking, and the rare ones are still found."""
    if not isinstance(empty_store, OxigraphStore):
        pytest.skip("Oxigraph's own bounded read")
    monkeypatch.setattr(oxigraph_backend, "DEGREE_ROWS", 5)
    triples = [Triple("m.us", "a.country.divisions", f"m.state{i}") for i in range(40)]
    triples += [Triple("m.us", "z.country.form_of_government", "m.republic"), Triple("m.us", "z.country.capital", "m.dc")]
    empty_store.write(LoadBatch(triples=triples))
    cap = EDGES_PER_MISSING_RELATION + 1
    assert sorted(empty_store._relation_degrees_to(["m.us"], cap)) == [
        ("m.us", "a.country.divisions", cap), ("m.us", "z.country.capital", 1), ("m.us", "z.country.form_of_government", 1)]
    capped = empty_store.neighbors(["m.us"], direction="out", limit_per_entity=10, every_relation=True)
    assert {e.relation for e in capped.edges["m.us"]} == {
        "a.country.divisions", "z.country.capital", "z.country.form_of_government"}
    assert empty_store.degrees(["m.us"]) == {"m.us": 42}  # popularity stays exact


# ---- the embedded store's adjacency index -----------------------------------------------
def random_kg(seed: int) -> LoadBatch:
    """Hubs over the cap in both directions and by several relations, unnamed nodes, entities
    with several names, literal values and facts to themselves: what the order and the caps
    of a read can differ on."""
    rng = random.Random(seed)
    entities = [f"m.e{i}" for i in range(300)]
    relations = [f"r.rel.{name}" for name in ("a", "b", "c", "d", "e", "f")]
    triples = [Triple(rng.choice(entities[:8]) if rng.random() < 0.3 else rng.choice(entities), rng.choice(relations),
                      rng.choice(entities[:5]) if rng.random() < 0.4 else rng.choice(entities)) for _ in range(4000)]
    names = [(e, f"Entity {i}") for i, e in enumerate(entities) if i % 7]
    names += [("m.e15", "Fifteen again")]  # two names: the store chooses
    attributes = [Attribute(rng.choice(entities), rng.choice(relations[:3]), str(rng.randint(1900, 1910)))
                  for _ in range(300)]
    return LoadBatch(triples=triples, names=names, attributes=attributes)


def test_oxigraph_reads_the_same_edges_in_the_same_order_from_its_adjacency_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A walk meets a capped hub's first edges and every entity's edges in the store's order:
    the index must give exactly what the quads give, or `kgqa load` would change answers."""
    monkeypatch.setattr(OxigraphStore, "adjacency_min_bytes", 0)
    store = open_store(f"oxigraph:{tmp_path / 'kg'}")
    store.write(random_kg(0))
    assert store._adjacency is None  # written, not settled: the quads answer
    quads = store._neighbors_from_quads
    store.after_load()
    index = store._adjacency
    assert index is not None and (tmp_path / "kg" / ADJACENCY_FILE).is_file()
    ids = [f"m.e{i}" for i in range(300)] + ["m.nowhere"]
    reads = [(d, r, cap) for d in ("both", "out", "in")
             for r in (None, ["r.rel.c"], ["r.rel.e", "r.rel.a", "r.rel.missing"]) for cap in (None, 1, 10, 100)]
    for read in reads:
        expected = quads(ids, *read)
        store.forget_entities()
        got = store._neighbors_from_index(index, ids, *read)
        assert got.edges == expected.edges, read
        assert got.truncated == expected.truncated and got.values == expected.values, read
    assert store._neighbors_from_quads(["m.e0"], "both", None, 10).truncated == {"m.e0"}  # the hubs are capped
    filled = store.neighbors(ids[:10], limit_per_entity=10, every_relation=True, values=True)
    store._adjacency = None
    assert store.neighbors(ids[:10], limit_per_entity=10, every_relation=True, values=True) == filled
    store.close()


def test_oxigraph_adjacency_build_that_fails_warns_and_leaves_the_store_readable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(OxigraphStore, "adjacency_min_bytes", 0)
    store = open_store(f"oxigraph:{tmp_path / 'kg'}")
    store.write(fixture_batch())
    write = adjacency_backend._write

    def disk_full(db: sqlite3.Connection, rows, names) -> None:
        write(db, itertools.islice(rows, 3), names)  # part of the rows written, then the disk fills up
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(adjacency_backend, "_write", disk_full)
    with pytest.warns(RuntimeWarning, match="adjacency index could not be built.*kgqa store settle"):
        store.after_load()
    assert store._adjacency is None and list((tmp_path / "kg").glob(f"{ADJACENCY_FILE}*")) == []
    assert ("m.cvt1", "out") in {(e.neighbor, e.direction) for e in store.neighbors(["m.tom"]).edges["m.tom"]}
    store.close()


def test_oxigraph_adjacency_index_is_dropped_by_a_write_and_built_by_after_load(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"oxigraph:{tmp_path / 'kg'}"
    side = tmp_path / "kg" / ADJACENCY_FILE
    store = open_store(url)
    store.write(fixture_batch())
    store.after_load()
    assert not side.exists()  # a small store: the quads answer fast enough
    monkeypatch.setattr(OxigraphStore, "adjacency_min_bytes", 0)
    store.after_load()
    assert side.is_file()
    store.write(LoadBatch(triples=[Triple("m.tom", "people.person.spouse", "m.rita")]))
    assert not side.exists() and store._adjacency is None  # never a stale read
    assert ("m.rita", "out") in {(e.neighbor, e.direction) for e in store.neighbors(["m.tom"]).edges["m.tom"]}
    store.after_load()
    store.close()
    del store
    store = reopen(url, read_only=True)
    assert store._adjacency is not None  # a reader finds it
    assert ("m.rita", "out") in {(e.neighbor, e.direction) for e in store.neighbors(["m.tom"]).edges["m.tom"]}
    store.close()
    del store
    store = reopen(url)
    store.clear()
    assert not side.exists() and store.neighbors(["m.tom"]).edges == {"m.tom": []}
    store.close()


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
    assert [(m.id, m.match) for m in empty_store.search_entities("東")] == [("東京", "prefix")]


def test_names_with_quotes_commas_and_line_breaks_come_back_whole(empty_store: GraphStore) -> None:
    """A name is data in every results format a backend reads (SPARQL CSV quotes it)."""
    name = 'He said "no, thanks",\nthen left; \'x\' \\ \t, ""'
    empty_store.write(LoadBatch(triples=[Triple("m.a", "knows", "m.b"), Triple("m.c", "knows", "m.a")],
                                names=[("m.b", name), ("m.c", ",")]))
    assert rows(empty_store, "m.a") == {("knows", "m.b", name, "out"), ("knows", "m.c", ",", "in")}
    assert empty_store.names(["m.b"]) == {"m.b": name}


def test_whether_a_relation_reaches_an_entity_twice(empty_store: GraphStore) -> None:
    """A walk back along `discovered_by` finds siblings; along `capital`, only where it came from."""
    empty_store.write(LoadBatch(triples=[Triple("m.he", "discovered_by", "m.ramsay"), Triple("m.ne", "discovered_by", "m.ramsay"),
                                         Triple("m.tl", "discovered_by", "m.crookes"), Triple("m.fr", "capital", "m.paris"),
                                         Triple("m.es", "capital", "m.madrid")], names=[]))
    assert empty_store.reached_twice("discovered_by") is True
    assert empty_store.reached_twice("discovered_by", forward=False) is False  # each element has one discoverer
    assert empty_store.reached_twice("capital") is False and empty_store.reached_twice("capital", forward=False) is False


def test_a_settled_sparql_store_notes_which_relations_reach_an_entity_twice(empty_store: GraphStore) -> None:
    """A walk asks it of every relation it steps along, two queries each, on every process's
    first question: once settled, one query answers for every relation, the same as
    asking; a write makes the notes stale, and readers ask again until the next settle."""
    from kg_store.sparql import SparqlStore

    if not isinstance(empty_store, SparqlStore):
        pytest.skip("a SPARQL endpoint's reads")
    empty_store.write(LoadBatch(triples=[Triple("m.he", "discovered_by", "m.ramsay"), Triple("m.ne", "discovered_by", "m.ramsay"),
                                         Triple("m.fr", "capital", "m.paris"), Triple("m.es", "capital", "m.madrid"),
                                         Triple("m.x", "urn:other:shares", "m.y"), Triple("m.z", "urn:other:shares", "m.y")],
                                names=[("m.paris", "Paris")]))
    stats = empty_store.stats()
    empty_store.after_load()
    asked = [(r, forward) for r in ("discovered_by", "capital", "urn:other:shares", "never.seen") for forward in (True, False)]

    def judged(store: SparqlStore) -> tuple[list[bool], int]:
        queries: list[str] = []
        select = store._select_rows
        store._select_rows = lambda query: queries.append(query) or select(query)  # type: ignore[method-assign]
        try:
            return [store.reached_twice(r, forward) for r, forward in asked], len(queries)
        finally:
            del store._select_rows

    expected = [True, False, False, False, True, False, False, False]
    with open_store(empty_store.url, read_only=True) as reader:
        assert judged(reader) == (expected, 1)  # type: ignore[arg-type]
    assert empty_store.stats() == stats  # the notes are no fact of the KG's
    empty_store.write(LoadBatch(triples=[Triple("m.vatican", "capital", "m.paris")], names=[]))
    with open_store(empty_store.url, read_only=True) as reader:
        answers, queries = judged(reader)  # type: ignore[arg-type]
    assert answers[2] is True and queries > 1  # asked: Paris is now two countries' capital


def test_relation_counts_are_entity_facts_without_schema(store: GraphStore) -> None:
    counts = store.relation_counts()
    assert counts["people.person.nationality"] == HUB_FANS + 1
    assert counts["film.film.genre"] == 3 and counts["related to"] == 1
    # schema relations and literal attributes (the birth date, names) are not facts between entities
    assert not any(r.startswith(("type.", "common.")) for r in counts)
    assert "people.person.date_of_birth" not in counts


def test_relation_names_are_every_entity_relation_without_schema(store: GraphStore) -> None:
    names = store.relation_names()
    assert set(store.relation_counts()) <= names and "film.film.genre" in names
    assert not any(r.startswith(DEFAULT_SCHEMA_PREFIXES) for r in names)


def test_entities_with_a_relation_by_direction(store: GraphStore) -> None:
    assert set(store.entities_with("film.film.genre", "out")) == {"m.forrest", "m.amelie", INJECTION_ID}
    assert store.entities_with("film.film.genre", "in") == ["m.drama"]
    fans = store.entities_with("people.person.nationality", "out", limit=5)
    assert len(fans) == 5 and len(set(fans)) == 5
    assert fans == store.entities_with("people.person.nationality", "out", limit=5)  # a stable order
    assert store.entities_with("no.such.relation", "out") == []
    assert store.entities_with(INJECTION_ID, "in") == []  # escaped, never pasted into the query
