"""`kgqa load -f rdf`: every syntax, names from the label predicates in the preferred
language, literals as attributes, blank nodes, ids as kg_store.ids maps them, malformed
statements; then a real RDF graph no one here wrote (schema.org as SHACL shapes, the
Turtle file pySHACL ships) loaded end to end into the embedded store and Virtuoso and
asked over with a scripted model."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from kg_store import open_store
from kg_store.ids import FREEBASE_NS, from_iri, to_iri
from kg_store.memory import MemoryStore
from kgqa.cli import app
from loaders.load import load_file
from loaders.rdf import RdfOptions, expand_iri, parse_rdf
from loaders.records import MalformedInput, Name
from tests.conftest import unavailable
from tests.scripted_endpoint import completion

EX = "http://example.org/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SAMPLE = """\
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix schema: <http://schema.org/> .
@prefix fb: <http://rdf.freebase.com/ns/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

ex:cologne rdfs:label "Köln"@de, "Cologne"@en ;
    ex:country ex:germany ;
    ex:population "1084831"^^xsd:integer ;
    ex:motto "Et hätt noch immer jot jejange"@ksh ;
    rdfs:comment "A city on the Rhine"@en-GB ;
    ex:landmark [ ex:architect ex:gerhard ] ;
    ex:twin _:t1 .
_:t1 ex:twin ex:cologne .
ex:munich skos:prefLabel "München"@de .
ex:germany schema:name "Germany" ;
    rdfs:label "Deutschland"@de .
fb:m.0abc fb:type.object.name "Tom Hanks"@en ;
    fb:film.actor.film fb:m.0cvt ;
    fb:type.object.type fb:people.person .
"""
COLOGNE, MUNICH, GERMANY = EX + "cologne", EX + "munich", EX + "germany"
runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), env=env)


def sample(tmp_path: Path, name: str = "sample.ttl", text: str = SAMPLE) -> Path:
    path = tmp_path / name
    path.write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
    return path


def test_names_attributes_blank_nodes_and_ids(tmp_path: Path) -> None:
    store = MemoryStore()
    report = load_file(store, "rdf", sample(tmp_path))
    assert (report.triples, report.names, report.attributes, report.malformed) == (6, 4, 2, 0)
    assert report.skipped == {"label in another language": 1, "literal in another language": 1,
                              "another label of a named entity": 1, "schema relation": 1}
    # The English label wins over the German one met first; München has German only.
    assert store.names([COLOGNE, MUNICH, GERMANY, "m.0abc"]) == {
        COLOGNE: "Cologne", MUNICH: "München", GERMANY: "Germany", "m.0abc": "Tom Hanks"}
    assert sorted(store.attributes([COLOGNE])[COLOGNE]) == [
        (EX + "population", "1084831"), ("http://www.w3.org/2000/01/rdf-schema#comment", "A city on the Rhine")]
    edges = {(e.relation, e.direction): e for e in store.neighbors([COLOGNE]).edges[COLOGNE]}
    assert edges[(EX + "country", "out")].neighbor_name == "Germany"
    landmark, twin = edges[(EX + "landmark", "out")], edges[(EX + "twin", "out")]
    assert landmark.neighbor.startswith("_:") and landmark.neighbor_name is None  # an unnamed node
    assert twin.neighbor.startswith("_:") and twin.neighbor.endswith(":t1")
    assert store.neighbors([landmark.neighbor]).edges[landmark.neighbor][0].neighbor == EX + "gerhard"
    # Freebase IRIs keep Freebase's ids (and its IRIs); every other IRI is its own id and round-trips.
    assert [e.neighbor for e in store.neighbors(["m.0abc"]).edges["m.0abc"]] == ["m.0cvt"]
    assert to_iri("m.0abc") == FREEBASE_NS + "m.0abc"
    assert all(from_iri(to_iri(i)) == i for i in (COLOGNE, landmark.neighbor, twin.neighbor, EX + "twin"))


def test_blank_node_ids_are_stable_for_a_file_and_differ_between_files(tmp_path: Path) -> None:
    path = sample(tmp_path)
    first, again = list(parse_rdf(path, ())), list(parse_rdf(path, ()))
    assert first == again  # `[ ... ]` gets a new random id from the parser every run: renumbered
    other = list(parse_rdf(sample(tmp_path, "copy.ttl"), ()))
    ids = {r.head for r in first if hasattr(r, "head") and r.head.startswith("_:")}
    other_ids = {r.head for r in other if hasattr(r, "head") and r.head.startswith("_:")}
    assert len(ids) == 2 and not ids & other_ids


def test_label_predicates_and_language_are_configurable(tmp_path: Path) -> None:
    path = sample(tmp_path)

    def names(**options: object) -> dict[str, str]:
        return {r.entity: r.name for r in parse_rdf(path, (), None, RdfOptions(**options)) if isinstance(r, Name)}

    assert names(label_language="de") == {COLOGNE: "Köln", MUNICH: "München", GERMANY: "Germany",
                                          "m.0abc": "Tom Hanks"}  # no language: as good as the preferred one
    assert names(label_language="*")[COLOGNE] == "Köln"  # any language: the first label
    assert names(label_predicates=("skos:prefLabel",)) == {MUNICH: "München"}
    assert names(label_predicates=(f"<{RDFS_LABEL}>",), label_language="fr") == {COLOGNE: "Köln", GERMANY: "Deutschland"}
    assert expand_iri("fb:type.object.name") == FREEBASE_NS + "type.object.name"
    with pytest.raises(ValueError, match="not an absolute IRI"):
        RdfOptions(label_predicates=("label",))
    with pytest.raises(ValueError, match="not a language tag"):
        RdfOptions(label_language="English")
    with pytest.raises(ValueError, match="unknown RDF format"):
        RdfOptions(rdf_format="csv")


def test_a_gzipped_file_and_an_explicit_format(tmp_path: Path) -> None:
    assert load_file(MemoryStore(), "rdf", sample(tmp_path, "sample.ttl.gz")).triples == 6
    unnamed = sample(tmp_path, "sample.txt")
    with pytest.raises(MalformedInput, match="cannot tell the RDF format"):
        load_file(MemoryStore(), "rdf", unnamed)
    assert load_file(MemoryStore(), "rdf", unnamed, rdf=RdfOptions(rdf_format="turtle")).triples == 6
    # The Freebase dump's own layout (tabs) reads as N-Triples too.
    line = f"<{FREEBASE_NS}m.a>\t<{FREEBASE_NS}film.film.genre>\t<{FREEBASE_NS}m.b>\t.\n"
    assert load_file(MemoryStore(), "rdf", sample(tmp_path, "fb.nt.gz", line)).triples == 1


MALFORMED = {  # file name: (lines, the third one bad; what the report says of it)
    "bad.ttl": (["@prefix ex: <http://example.org/> .", "ex:a ex:p ex:b, ex:z .", "ex:c ex:p <relative> .", "ex:d ex:p ex:e ."],
                "No scheme found"),
    "bad.nt": (["<http://a> <http://p> <http://b> .", "<http://c> <http://p> <http://d> .", "not a triple",
                "<http://e> <http://p> <http://f> ."], "subject"),
    "bad.nq": (["<http://a> <http://p> <http://b> <http://g> .", "<http://c> <http://p> <http://d> .",
                '<http://e> <http://p> "x"^^ .', "<http://e> <http://p> <http://f> <http://g> ."], "datatype"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_statement_is_counted_with_its_line_and_the_rest_loaded(tmp_path: Path, name: str) -> None:
    lines, said = MALFORMED[name]
    path = sample(tmp_path, name, "\n".join(lines) + "\n")
    store = open_store(f"oxigraph:{tmp_path / 'store'}")
    report = load_file(store, "rdf", path)
    assert report.triples == 3 and report.malformed == 1 and store.stats().triples == 3
    line, reason = report.malformed_examples[0]
    assert line == 3 and said in reason
    with pytest.raises(MalformedInput, match=f"{name}:3: "):
        load_file(MemoryStore(), "rdf", path, strict=True)


def test_rdf_xml_and_json_ld_that_break_off(tmp_path: Path) -> None:
    xml = sample(tmp_path, "bad.rdf", '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"'
                 ' xmlns:ex="http://example.org/">\n<rdf:Description rdf:about="http://example.org/a">'
                 '<ex:p rdf:resource="http://example.org/b"/></rdf:Description>\n<broken></rdf:RDF>\n')
    report = load_file(MemoryStore(), "rdf", xml)
    assert report.triples == 1 and report.malformed >= 1  # what came before the break is kept
    bad_json = sample(tmp_path, "bad.jsonld", '{"@id": "http://example.org/a",\n "http://example.org/p": \n')
    report = load_file(MemoryStore(), "rdf", bad_json)
    assert report.records == 0 and report.malformed == 1 and "not JSON-LD" in report.malformed_examples[0][1]
    remote = sample(tmp_path, "remote.jsonld", '{"@context": "http://127.0.0.1:9/context.jsonld", "name": "x"}')
    with pytest.raises(MalformedInput, match="@context could not be fetched"):
        load_file(MemoryStore(), "rdf", remote)


@pytest.mark.parametrize("name, text", [
    ("rel.ttl", "<thing> <http://example.org/p> <other> .\n<http://example.org/a> <http://example.org/p> <b> .\n"),
    ("rel.jsonld", json.dumps([{"@id": "thing", EX + "p": {"@id": "other"}}, {"@id": EX + "a", EX + "p": {"@id": "b"}}])),
])
def test_relative_iris_need_a_base(tmp_path: Path, name: str, text: str) -> None:
    path = sample(tmp_path, name, text)
    report = load_file(MemoryStore(), "rdf", path)  # never resolved against the working directory
    assert report.records == 0 and report.malformed >= 2
    assert any(said in report.malformed_examples[0][1] for said in ("No scheme", "relative IRI"))
    store = MemoryStore()
    report = load_file(store, "rdf", path, rdf=RdfOptions(base_iri=EX))
    assert report.triples == 2 and [e.neighbor for e in store.neighbors([EX + "thing"]).edges[EX + "thing"]] == [
        EX + "other"]


def test_a_file_that_is_not_rdf_at_all_is_a_clear_error(tmp_path: Path) -> None:
    binary = tmp_path / "photo.nt"
    binary.write_bytes(bytes(range(256)) * 400)
    with pytest.raises(MalformedInput, match="not n-triples: the first 100 statements are all malformed"):
        load_file(MemoryStore(), "rdf", binary)
    csv = sample(tmp_path, "table.ttl", "name,age\nalice,31\n")
    result = invoke("load", "-f", "rdf", str(csv), "--store", "memory:")
    assert result.exit_code == 1 and "reads as rdf (turtle)" in " ".join(result.output.split())
    cut = tmp_path / "cut.ttl.gz"
    cut.write_bytes(gzip.compress(SAMPLE.encode() * 50)[:300])
    with pytest.raises(MalformedInput, match="cannot read file"):
        load_file(MemoryStore(), "rdf", cut)


def test_an_id_that_cannot_be_stored_is_counted_and_its_batch_written(tmp_path: Path) -> None:
    long_iri = "http://example.org/" + "x" * 3000
    path = sample(tmp_path, "long.nt", f"<http://a> <http://p> <http://b> .\n<{long_iri}> <http://p> <http://b> .\n"
                                       "<http://c> <http://p> <http://d> .\n")
    store = open_store(f"oxigraph:{tmp_path / 'store'}")
    report = load_file(store, "rdf", path)
    assert (report.triples, report.malformed, store.stats().triples) == (2, 1, 2)
    assert "an id of 3,019 characters" in report.malformed_examples[0][1]


def test_load_command_flags(tmp_path: Path) -> None:
    path = sample(tmp_path)
    store = f"oxigraph:{tmp_path / 'store'}"
    loaded = invoke("load", "-f", "rdf", str(path), "--store", store, "--label-language", "de",
                    "--label-predicate", "rdfs:label", "--label-predicate", "skos:prefLabel", "--json")
    assert loaded.exit_code == 0, loaded.output
    assert json.loads(loaded.stdout)["names"] == 3  # Köln, München, Deutschland: schema:name is not listed
    found = json.loads(invoke("store", "search", "koln", "--store", store, "--json").stdout)
    assert found[0]["id"] == COLOGNE
    env = {"KGQA_LABEL_LANGUAGE": "*", "KGQA_LABEL_PREDICATES": json.dumps(["skos:prefLabel"])}
    from_env = invoke("load", "-f", "rdf", str(path), "--store", "memory:", "--json", env=env)
    assert json.loads(from_env.stdout)["names"] == 1
    assert invoke("load", "-f", "metaqa", str(path), "--rdf-format", "turtle", "--store", "memory:").exit_code == 2
    bad = invoke("load", "-f", "rdf", str(path), "--label-predicate", "label", "--store", "memory:")
    assert bad.exit_code == 2 and "not an absolute IRI" in bad.output
    explicit = invoke("load", "-f", "rdf", str(sample(tmp_path, "data.txt")), "--rdf-format", "turtle",
                      "--store", "memory:", "--json")
    assert json.loads(explicit.stdout)["triples"] == 6


# ---- a real graph: schema.org as the SHACL shapes pySHACL ships ----------------------------
@pytest.fixture(scope="module")
def schema_org() -> Path:
    """pySHACL's copy of schema.org (TopQuadrant's RDF/SHACL version of the official
    Turtle file): 1,300 labelled classes and properties, enumeration members, 5,000
    blank nodes (SHACL lists and shapes)."""
    spec = importlib.util.find_spec("pyshacl")  # its file, without importing the validator
    if spec is None or spec.origin is None:
        unavailable("pyshacl (in the test extra) is not installed: it ships the schema.org Turtle file")
    return Path(spec.origin).parent / "assets" / "schema.ttl"


def expected_counts(path: Path) -> tuple[int, int, int]:
    """(facts, names, attributes) counted apart from the loader, by SPARQL over the file."""
    store = ox.Store()
    store.bulk_load(path=str(path), format=ox.RdfFormat.TURTLE)

    def count(where: str) -> int:
        return int(next(iter(store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ {where} }}")))["n"].value)

    english = "(lang(?o) = '' || langMatches(lang(?o), 'en'))"
    return (count("?s ?p ?o FILTER(!isLiteral(?o))"),
            count(f"SELECT DISTINCT ?s WHERE {{ ?s <{RDFS_LABEL}> ?o FILTER(isLiteral(?o) && {english}) }}"),
            count(f"?s ?p ?o FILTER(isLiteral(?o) && ?p != <{RDFS_LABEL}> && {english})"))


@pytest.fixture(scope="module")
def in_every_syntax(schema_org: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same graph written by pyoxigraph in each syntax (JSON-LD is then read by rdflib)."""
    folder = tmp_path_factory.mktemp("syntaxes")
    triples = [ox.Triple(q.subject, q.predicate, q.object) for q in ox.parse(path=str(schema_org))]
    graph = ox.NamedNode("http://example.org/graph")
    files = {"turtle": schema_org}
    for name, suffix, fmt in (("n-triples", "nt", ox.RdfFormat.N_TRIPLES), ("n-quads", "nq", ox.RdfFormat.N_QUADS),
                              ("trig", "trig", ox.RdfFormat.TRIG), ("rdf-xml", "rdf", ox.RdfFormat.RDF_XML),
                              ("json-ld", "jsonld", ox.RdfFormat.JSON_LD)):
        terms = [ox.Quad(t.subject, t.predicate, t.object, graph) for t in triples] if fmt.supports_datasets else triples
        files[name] = folder / f"schema.{suffix}"
        ox.serialize(terms, str(files[name]), fmt)
    files["turtle, gzipped"] = folder / "schema.ttl.gz"
    files["turtle, gzipped"].write_bytes(gzip.compress(schema_org.read_bytes()))
    return files


SYNTAXES = ["turtle", "n-triples", "n-quads", "trig", "rdf-xml", "json-ld", "turtle, gzipped"]


@pytest.mark.parametrize("syntax", SYNTAXES)
def test_every_syntax_of_a_real_graph_loads_the_same(in_every_syntax: dict[str, Path], syntax: str) -> None:
    store = MemoryStore()
    report = load_file(store, "rdf", in_every_syntax[syntax])
    assert report.malformed == 0 and not report.skipped
    assert (report.triples, report.names, report.attributes) == expected_counts(in_every_syntax["turtle"])
    assert store.names(["http://schema.org/Volcano"]) == {"http://schema.org/Volcano": "Volcano"}
    hood = store.neighbors(["http://schema.org/Volcano"], relations=["http://www.w3.org/2000/01/rdf-schema#subClassOf"])
    assert [e.neighbor_name for e in hood.edges["http://schema.org/Volcano"]] == ["Landform"]


def ask_volcano(store: str, tmp_path: Path, endpoint) -> dict:
    """`kgqa ask` with a scripted model: the analysis names the topic, every answer prompt
    is answered with Landform, which the kept path must end in for it to count."""
    state, url = endpoint
    analysis = json.dumps({"topic_entities": ["Volcano"], "split_questions": [], "indicator": "", "depth": 1})
    state.script = [(200, completion(analysis))] + [(200, completion("ans: Landform"))] * 8
    env = {"KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_DATA_DIR": str(tmp_path / "data"),
           "KGQA_LLM_CACHE": "false"}
    # One hop: schema.org's hubs (rdfs:Class, SHACL shapes) make deeper walks slow, not better.
    result = invoke("ask", "What is a volcano a subclass of?", "--store", store, "--depth", "1", "--json", env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def assert_answered_from_the_graph(answer: dict) -> None:
    assert answer["answers"] == ["Landform"] and answer["source"] == "kg"
    best = answer["paths"][0]
    assert best["answer"] and best["start"] == {"id": "http://schema.org/Volcano", "name": "Volcano"}
    assert best["relations"] == [["http://www.w3.org/2000/01/rdf-schema#subClassOf", True]]
    assert best["ends"] == [{"id": "http://schema.org/Landform", "name": "Landform"}]


def load_json(path: Path, store: str) -> dict:
    result = invoke("load", "-f", "rdf", str(path), "--store", store, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_real_graph_into_the_embedded_store_then_asked(schema_org: Path, tmp_path: Path, endpoint) -> None:
    store = f"oxigraph:{tmp_path / 'store'}"
    report = load_json(schema_org, store)
    assert report["malformed"] == 0 and (report["triples"], report["names"], report["attributes"]) == \
        expected_counts(schema_org)
    stats = json.loads(invoke("store", "stats", "--store", store, "--json").stdout)
    load_json(schema_org, store)  # again: blank nodes keep their ids, nothing is added
    assert json.loads(invoke("store", "stats", "--store", store, "--json").stdout) == stats
    assert_answered_from_the_graph(ask_volcano(store, tmp_path, endpoint))


@pytest.mark.server
def test_a_real_graph_into_virtuoso_then_asked(schema_org: Path, virtuoso_url: str, tmp_path: Path,
                                               endpoint) -> None:
    store = virtuoso_url.replace("graph=urn:kgqa:test", "graph=urn:kgqa:test-rdf")  # a graph of its own
    target = open_store(store)
    try:
        target.clear()
    finally:
        target.close()
    report = load_json(schema_org, store)
    assert report["malformed"] == 0 and report["names"] == expected_counts(schema_org)[1]
    embedded = f"oxigraph:{tmp_path / 'embedded'}"
    load_json(schema_org, embedded)
    stats = [json.loads(invoke("store", "stats", "--store", url, "--json").stdout) for url in (store, embedded)]
    assert stats[0] == stats[1]
    assert_answered_from_the_graph(ask_volcano(store, tmp_path, endpoint))
