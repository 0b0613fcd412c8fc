"""`bench/pog_scale.py`: phase 1's walk over a synthetic KG, its store reads timed and counted."""

from __future__ import annotations

from pathlib import Path

from bench.pog_scale import measure
from bench.synthetic_kg import named_entities, synthetic_facts


def test_the_walks_read_the_loaded_kg_and_a_second_run_reuses_its_store(tmp_path: Path) -> None:
    first = measure(3_000, tmp_path, tmp_path, topics=5, depth=2, seed=0)
    assert first["load_reused"] is False and first["load_facts_per_s"] > 0
    assert first["topics"] == 5 and first["calls_avg"] >= 2 and first["rows_avg"] > 0
    assert first["store_ms_p50"] <= first["store_ms_p95"] <= first["store_ms_max"]
    again = measure(3_000, tmp_path, tmp_path, topics=5, depth=2, seed=0)
    assert again["load_reused"] is True and "load_seconds" not in again
    assert (again["calls_avg"], again["rows_avg"]) == (first["calls_avg"], first["rows_avg"])  # the same walks
    assert not list(tmp_path.glob("*.loading"))
    shared = measure(3_000, tmp_path, tmp_path, topics=5, depth=2, seed=0, shared_cache=True)
    assert shared["cache"] == "shared" and first["cache"] == "per topic"
    assert shared["rows_avg"] <= first["rows_avg"]  # what an earlier topic read is not read again
    warmed = measure(3_000, tmp_path, tmp_path, topics=5, depth=2, seed=0, pages="warm")
    assert warmed["pages"] == "warm" and first["pages"] == "as-found"
    assert (warmed["calls_avg"], warmed["rows_avg"]) == (first["calls_avg"], first["rows_avg"])  # only timed once


def test_the_named_entity_count_is_the_generators_own() -> None:
    assert named_entities(20_000) == synthetic_facts(20_000, 0)[1]


def test_sparql_queries_are_sorted_by_what_they_read() -> None:
    """The Virtuoso breakdown names each query the store writes by its kind: a change to the
    queries' text that the kinds no longer tell apart would mislabel where the time goes."""
    from bench.pog_scale import SparqlQueryKinds, kind_lines
    from kg_store import sparql_text
    from kg_store.ids import FACTS_IN_BY_IRI, FACTS_IN_IRI, FACTS_OUT_BY_IRI, FACTS_OUT_IRI

    ids = ["m.01", "m.02"]
    assert {SparqlQueryKinds.kind(q) for q in sparql_text.neighbors_queries(ids, "both", None, None)} == {"edges"}
    assert {SparqlQueryKinds.kind(q) for q in sparql_text.neighbors_queries(ids, "both", None, 100)} == {"capped edges"}
    assert {SparqlQueryKinds.kind(q) for q in sparql_text.neighbors_queries(ids[:1], "in", None, 100)} == {"capped edges"}
    assert SparqlQueryKinds.kind(sparql_text.edge_counts_query(ids, "out", None)) == "edge counts"
    assert SparqlQueryKinds.kind(sparql_text.degrees_query(ids)) == "relation degrees"
    assert {SparqlQueryKinds.kind(q) for q in sparql_text.pair_edges_queries([("m.01", "r")], "both")} == {"pair edges"}
    assert SparqlQueryKinds.kind(sparql_text.names_query(ids)) == "names"
    assert SparqlQueryKinds.kind(sparql_text.directed_degrees_query(ids)) == "relation degrees"
    assert SparqlQueryKinds.kind(sparql_text.capped_relation_edges_queries([("m.01", "r")], "in", 11)[0]) == "capped edges"
    for looked_up in (sparql_text.stored_counts_query(ids, FACTS_OUT_IRI, FACTS_IN_IRI),
                      sparql_text.stored_counts_query(ids, FACTS_OUT_BY_IRI, FACTS_IN_BY_IRI),
                      sparql_text.reaches_twice_query("r", True, ids)):
        assert SparqlQueryKinds.kind(looked_up) == "other"
    measured = {"facts": 10, "backend": "virtuoso", "cache": "per topic", "topics": 4,
                "query_kinds": {"edges": {"queries": 8, "seconds": 0.2, "rows": 40}}}
    assert kind_lines(measured) == [{"facts": 10, "backend": "virtuoso", "cache": "per topic", "query_kind": "edges",
                                     "queries_a_topic": 2.0, "ms_a_topic": 50.0, "ms_a_query": 25.0,
                                     "rows_a_topic": 10, "rows_a_query": 5}]
    assert kind_lines({**measured, "query_kinds": {}}) == []
