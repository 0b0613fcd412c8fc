"""SPARQL text for the RDF backends, with every term strictly escaped.

Remote endpoints (Virtuoso) take no query parameters, so values are serialised here and
only here: IRIs come from `ids.to_iri` (Freebase local names or percent-encoded) and are
re-checked against the IRIREF grammar; literals are escaped per the SPARQL grammar.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

from kg_store.errors import InvalidId
from kg_store.ids import (
    COUNTED_OVER_IRI,
    FACTS_IN_BY_IRI,
    FACTS_IN_IRI,
    FACTS_OUT_BY_IRI,
    FACTS_OUT_IRI,
    FREEBASE_NS,
    NAME_IRI,
    NORM_NAME_IRI,
    REACHED_TWICE_IRI,
    REACHED_TWICE_SAMPLE_IRI,
    STORE_IRI,
    from_iri,
    is_freebase_local,
    normalize_name,
    to_iri,
)
from kg_store.model import Attribute, EntityMatch, LoadBatch

# IRIREF forbids these characters (SPARQL 1.1 grammar, production 139).
_BAD_IRI_CHARS = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_LITERAL_ESCAPES = str.maketrans(
    {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
)
_LANG = re.compile(r"[A-Za-z]+(-[A-Za-z0-9]+)*")


_IRI_CACHE: dict[str, str] = {}


def iri(value: str) -> str:
    """`<...>` for an id or relation, via the reversible id mapping (memoised: loads and
    walks serialise the same ids again and again)."""
    found = _IRI_CACHE.get(value)
    if found is None:
        if len(_IRI_CACHE) >= 1 << 18:  # bounded: ~50 MB
            _IRI_CACHE.clear()
        # A Freebase-shaped id needs no checks: big loads miss this cache all the time.
        found = _IRI_CACHE[value] = (f"<{FREEBASE_NS}{value}>" if is_freebase_local(value)
                                     else iri_ref(to_iri(value)))
    return found


def iri_ref(full_iri: str) -> str:
    if _BAD_IRI_CHARS.search(full_iri):
        raise InvalidId(f"not a valid IRI: {full_iri!r}")
    return f"<{full_iri}>"


def literal(value: str, lang: str | None = None, datatype: str | None = None) -> str:
    text = '"' + value.translate(_LITERAL_ESCAPES) + '"'
    if lang:
        if not _LANG.fullmatch(lang):
            raise InvalidId(f"not a language tag: {lang!r}")
        return f"{text}@{lang}"
    if datatype:
        return f"{text}^^{iri_ref(datatype)}"
    return text


def values(var: str, ids: Iterable[str]) -> str:
    return f"VALUES ?{var} {{ {' '.join(iri(i) for i in ids)} }}"


def ntriples(batch: LoadBatch) -> str:
    """The batch as N-Triples (names also get their normalised-name index triple)."""
    lines: list[str] = []
    add, term = lines.append, iri
    for head, relation, tail in batch.triples:
        add(f"{term(head)} {term(relation)} {term(tail)} .")
    name_p, norm_p = iri_ref(NAME_IRI), iri_ref(NORM_NAME_IRI)
    for entity, name in batch.names:
        subject = iri(entity)
        add(f"{subject} {name_p} {literal(name, 'en')} .")
        add(f"{subject} {norm_p} {literal(normalize_name(name))} .")
    for a in batch.attributes:
        add(f"{iri(a.subject)} {iri(a.relation)} {_attribute_literal(a)} .")
    lines.append("")
    return "\n".join(lines)


def _attribute_literal(a: Attribute) -> str:
    return literal(a.value, a.lang, a.datatype)


NAME_FILTER = "FILTER(lang(?n) = 'en' || lang(?n) = '')"


def from_graph(query: str, graph: str | None) -> str:
    """Scope a top-level SELECT to one graph. Virtuoso's queries without FROM see every
    graph, its system graphs included; sub-selects must not carry FROM, so only the
    first WHERE (always the top-level one in the queries built here) gets it."""
    if not graph:
        return query
    head, where, rest = query.partition(" WHERE {")
    return f"{head} FROM {iri_ref(graph)}{where}{rest}"


def neighbors_queries(
    ids: Sequence[str], direction: str, relations: Collection[str] | None, limit_per_entity: int | None
) -> list[str]:
    """PoG's exploration query, one per direction (out-edges, in-edges), with names.

    Two simple queries rather than one UNION: Virtuoso plans each in a fraction of the
    time (measured 2.7 vs 3.4 ms for one entity, 88 vs 108 ms for 100). With a cap, each
    entity is its own sub-select with LIMIT cap+1, so a hub never ships more than cap+1
    rows and the extra row tells us it was cut.
    """
    rel_values = _relation_values(relations)
    queries = []
    for dir_name, pattern in edge_patterns(direction):
        if limit_per_entity:
            body = " UNION ".join(_capped(i, relations, pattern, limit_per_entity + 1) for i in ids)
        else:
            body = f"{values('s', ids)} {rel_values} {pattern}"
        queries.append(_edges_select(dir_name, body))
    return queries


def pair_edges_queries(pairs: Sequence[tuple[str, str]], direction: str) -> list[str]:
    """Every edge of each (entity, relation) pair, one query per direction, with names: a
    branch an entity, its relations as VALUES. Not one VALUES table of (?s ?r) pairs:
    Virtuoso plans some such tables badly the first time it meets their text (0.3-0.6 s at
    20M facts, against 10-20 ms for the same pairs a branch an entity)."""
    relations: dict[str, list[str]] = {}
    for entity, relation in pairs:
        relations.setdefault(entity, []).append(relation)
    return [_edges_select(dir_name, " UNION ".join(
        f"{{ {values('s', [entity])} {_relation_values(wanted)} {pattern} }}" for entity, wanted in relations.items()))
        for dir_name, pattern in edge_patterns(direction)]


def edge_patterns(direction: str) -> list[tuple[str, str]]:
    """(direction, pattern) of the edges of ?s that a read in `direction` wants: entities only."""
    return [(d, pattern) for d, pattern in (("out", "?s ?r ?x . FILTER(isIRI(?x))"), ("in", "?x ?r ?s ."))
            if direction in (d, "both")]


def _edges_select(dir_name: str, body: str) -> str:
    """The edges `body` binds (?s ?r ?x), with the neighbour's name where it has one."""
    name = f"OPTIONAL {{ ?x {iri_ref(NAME_IRI)} ?n {NAME_FILTER} }}"
    return f'SELECT ?s ?r ?x ?n ("{dir_name}" AS ?dir) WHERE {{ {body} {name} }}'


def edge_counts_query(ids: Sequence[str], direction: str, relations: Collection[str] | None) -> str:
    """How many facts each id has in one direction (`out` counts its literals too: an
    upper bound on its edges): which ids a capped read must cut, and which it can read whole."""
    pattern = "?s ?r ?x" if direction == "out" else "?x ?r ?s"
    return f"SELECT ?s (COUNT(*) AS ?c) WHERE {{ {values('s', ids)} {_relation_values(relations)} {pattern} }} GROUP BY ?s"


def _relation_values(relations: Collection[str] | None) -> str:
    """The relations a read is restricted to, as ?r's VALUES; nothing for every relation."""
    return f"VALUES ?r {{ {' '.join(iri(r) for r in relations)} }}" if relations else ""


# The store's own facts about its facts: not the KG's.
STORE_OWN_IRIS = (NORM_NAME_IRI, FACTS_OUT_IRI, FACTS_IN_IRI, FACTS_OUT_BY_IRI, FACTS_IN_BY_IRI, COUNTED_OVER_IRI,
                  REACHED_TWICE_IRI, REACHED_TWICE_SAMPLE_IRI)


def fact_counts_updates(graph: str | None, over: int, relations_over: int) -> list[str]:
    """The updates that count the facts of every entity with more than `over` of them one
    way, and of every entity with more than `relations_over` one way its facts between
    entities a relation and direction, replacing earlier counts: first the mark that readers
    trust them goes (a reader meanwhile counts for itself), last it comes back. Out counts
    every fact of the entity, literals too (an upper bound on its edges, as
    `edge_counts_query`'s); a relation's counts are `directed_degrees_query`'s."""
    mark = f"{iri_ref(STORE_IRI)} {iri_ref(COUNTED_OVER_IRI)}"
    counted = {
        iri_ref(FACTS_OUT_IRI): f"SELECT ?e (COUNT(*) AS ?c) WHERE {{ {scoped(graph, '?e ?p ?o')} }} GROUP BY ?e",
        iri_ref(FACTS_IN_IRI): f"SELECT ?e (COUNT(*) AS ?c) WHERE {{ {scoped(graph, '?s ?p ?e FILTER(isIRI(?e))')} }} GROUP BY ?e",
    }
    biggest = (f"{{ SELECT DISTINCT ?e WHERE {{ VALUES ?m {{ {' '.join(counted)} }} {scoped(graph, '?e ?m ?n')} "
               f"FILTER(?n > {int(relations_over)}) }} }}")
    by_relation = {
        iri_ref(FACTS_OUT_BY_IRI): scoped(graph, "?e ?p ?o FILTER(isIRI(?o))"),
        iri_ref(FACTS_IN_BY_IRI): scoped(graph, "?o ?p ?e"),
    }
    return [
        f"DELETE WHERE {{ {scoped(graph, f'{mark} ?t')} }}",
        *(f"DELETE WHERE {{ {scoped(graph, f'?e {p} ?c')} }}" for p in [*counted, *by_relation]),
        *(f"INSERT {{ {scoped(graph, f'?e {p} ?c')} }} WHERE {{ {count} HAVING (COUNT(*) > {int(over)}) }}"
          for p, count in counted.items()),
        *(f"INSERT {{ {scoped(graph, f'?e {p} ?c')} }} WHERE {{ SELECT ?e (CONCAT(STR(COUNT(*)), \" \", STR(?p)) AS ?c) "
          f"WHERE {{ {biggest} {pattern} }} GROUP BY ?e ?p }}" for p, pattern in by_relation.items()),
        f"INSERT DATA {{ {scoped(graph, f'{mark} {int(over)}')} }}",
    ]


def drop_settled_marks(graph: str | None) -> str:
    """The update that stops readers trusting what settling wrote (the facts are changing):
    the fact counts' mark and the relations' shapes' sample."""
    pattern = f"{iri_ref(STORE_IRI)} ?m ?t"
    marks = ", ".join(iri_ref(m) for m in (COUNTED_OVER_IRI, REACHED_TWICE_SAMPLE_IRI))
    return f"DELETE {{ {scoped(graph, pattern)} }} WHERE {{ {scoped(graph, pattern)} FILTER(?m IN ({marks})) }}"


def reached_twice_updates(graph: str | None, reached_twice: Iterable[tuple[str, bool]], sample: int,
                          chunk: int) -> list[str]:
    """The updates that note, replacing earlier notes, which relations reach an entity twice
    (`reached_twice`: (relation, forward) pairs that do), judged on `sample` entities: the
    sample's mark goes first (a reader meanwhile asks the store itself) and comes back last.
    At most `chunk` facts an INSERT DATA."""
    store, flag = iri_ref(STORE_IRI), iri_ref(REACHED_TWICE_IRI)
    sample_mark = f"{store} {iri_ref(REACHED_TWICE_SAMPLE_IRI)}"
    facts = [f"{store} {flag} {literal(('forward ' if forward else 'backward ') + relation)} ."
             for relation, forward in reached_twice]
    return [
        f"DELETE WHERE {{ {scoped(graph, f'{sample_mark} ?t')} }}",
        f"DELETE WHERE {{ {scoped(graph, f'{store} {flag} ?t')} }}",
        *(f"INSERT DATA {{ {scoped(graph, ' '.join(facts[start:start + chunk]))} }}"
          for start in range(0, len(facts), chunk)),
        f"INSERT DATA {{ {scoped(graph, f'{sample_mark} {int(sample)}')} }}",
    ]


def reached_twice_query() -> str:
    """The noted relations that reach an entity twice, and the sample they were judged on
    (rows ?m ?t: the sample's mark once, a "forward|backward RELATION" a relation and way)."""
    marks = " ".join(iri_ref(m) for m in (REACHED_TWICE_SAMPLE_IRI, REACHED_TWICE_IRI))
    return f"SELECT ?m ?t WHERE {{ VALUES ?m {{ {marks} }} {iri_ref(STORE_IRI)} ?m ?t }}"


def scoped(graph: str | None, pattern: str) -> str:
    """`pattern` inside the named graph writes go to, or as it is for the default graph."""
    return f"GRAPH {iri_ref(graph)} {{ {pattern} }}" if graph else pattern


def counted_over_query() -> str:
    return f"SELECT ?t WHERE {{ {iri_ref(STORE_IRI)} {iri_ref(COUNTED_OVER_IRI)} ?t }}"


def stored_counts_query(ids: Sequence[str], out_predicate: str, in_predicate: str) -> str:
    """The counts a settled store keeps of each of `ids` that has any, under the two
    predicates (out, in): `FACTS_OUT_IRI`/`FACTS_IN_IRI`'s, or by relation
    `FACTS_OUT_BY_IRI`/`FACTS_IN_BY_IRI`'s "COUNT RELATION-IRI". Rows (?s ?m ?c)."""
    return (f"SELECT ?s ?m ?c WHERE {{ {values('s', ids)} VALUES ?m {{ {iri_ref(out_predicate)} "
            f"{iri_ref(in_predicate)} }} ?s ?m ?c }}")


def names_query(ids: Sequence[str]) -> str:
    return f"SELECT ?s ?n WHERE {{ {values('s', ids)} ?s {iri_ref(NAME_IRI)} ?n {NAME_FILTER} }}"


def _an_attribute(var: str) -> str:
    """The filter of a literal's predicate that makes it an attribute of the KG: not a
    name, nor the store's own (`STORE_OWN_IRIS`)."""
    return " && ".join(f"?{var} != {iri_ref(p)}" for p in (NAME_IRI, *STORE_OWN_IRIS))


def attributes_query(ids: Sequence[str]) -> str:
    return (
        f"SELECT ?s ?r ?v WHERE {{ {values('s', ids)} ?s ?r ?v . FILTER(isLiteral(?v) && {_an_attribute('r')}) }}"
    )


_XSD = "http://www.w3.org/2001/XMLSchema#"
_ZONE = r"(Z|[+-]\d\d:\d\d)?"
_YEAR, _MONTH, _DAY = r"-?\d{4,}", r"(0[1-9]|1[0-2])", r"(0[1-9]|[12]\d|3[01])"
_INTEGER, _DECIMAL = r"[+-]?\d+", r"[+-]?(\d+(\.\d*)?|\.\d+)"
# The datatypes a value is looked for with, besides a plain and an English literal (a
# literal's term is its text and its datatype, and a question gives only the text), each
# with its lexical form: a server may refuse a typed literal its datatype cannot read.
VALUE_DATATYPES = {_XSD + name: re.compile(form) for name, form in (
    ("integer", _INTEGER), ("int", _INTEGER), ("long", _INTEGER), ("nonNegativeInteger", r"\+?\d+"),
    ("positiveInteger", r"\+?0*[1-9]\d*"), ("decimal", _DECIMAL), ("double", _DECIMAL + r"([eE][+-]?\d+)?"),
    ("float", _DECIMAL + r"([eE][+-]?\d+)?"), ("gYear", _YEAR + _ZONE), ("gYearMonth", f"{_YEAR}-{_MONTH}{_ZONE}"),
    ("date", f"{_YEAR}-{_MONTH}-{_DAY}{_ZONE}"),
    ("dateTime", f"{_YEAR}-{_MONTH}-{_DAY}T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d+)?{_ZONE}"),
    ("boolean", r"true|false|1|0"))}


def value_forms(value: str) -> list[tuple[str | None, str | None]]:
    """The (language, datatype) forms a literal with this text may be stored in."""
    typed = [(None, datatype) for datatype, form in VALUE_DATATYPES.items() if form.fullmatch(value)]
    return [(None, None), ("en", None), *typed]


def holders_query(value: str, limit: int | None) -> str:
    """The (relation, entity) of the literal attributes holding `value`, in any of its forms."""
    forms = " ".join(literal(value, lang, datatype) for lang, datatype in value_forms(value))
    bound = f" LIMIT {int(limit)}" if limit is not None else ""
    return f"SELECT ?r ?s WHERE {{ VALUES ?v {{ {forms} }} ?s ?r ?v . FILTER(isIRI(?s) && {_an_attribute('r')}) }}{bound}"


def any_attribute_query() -> str:
    """One literal attribute, if the store holds any (names aside)."""
    return f"SELECT ?s WHERE {{ ?s ?r ?v . FILTER(isLiteral(?v) && {_an_attribute('r')}) }} LIMIT 1"


def entity_match(entity_iri: str, name: str, kind: str) -> EntityMatch:
    return EntityMatch.of(from_iri(entity_iri), name, kind)  # type: ignore[arg-type]


def search_exact_query(text: str, normalized: str, limit: int) -> str:
    name_p, norm_p = iri_ref(NAME_IRI), iri_ref(NORM_NAME_IRI)
    return (
        f"SELECT ?e ?n ?kind WHERE {{ "
        f'{{ VALUES ?lit {{ {literal(text, "en")} {literal(text)} }} ?e {name_p} ?lit . BIND(?lit AS ?n) BIND("exact" AS ?kind) }} '
        f'UNION {{ ?e {norm_p} {literal(normalized)} . ?e {name_p} ?n . {NAME_FILTER} BIND("normalized" AS ?kind) }} '
        f"}} LIMIT {int(limit) * 4}"
    )


def _token_filter(tokens: Sequence[str]) -> str:
    """Every query token starts a token of ?norm (normalised names are single-spaced)."""
    return " && ".join(f'CONTAINS(CONCAT(" ", ?norm), {literal(" " + t)})' for t in tokens)


def search_scan_query(normalized: str, tokens: Sequence[str], limit: int) -> str:
    """Partial matches by tokens without a text index: a scan of every normalised name,
    for endpoints that have none (plain SPARQL 1.1)."""
    norm_p, name_p = iri_ref(NORM_NAME_IRI), iri_ref(NAME_IRI)
    return (
        f"SELECT ?e ?n ?norm WHERE {{ ?e {norm_p} ?norm . FILTER({_token_filter(tokens)}) "
        f"?e {name_p} ?n . {NAME_FILTER} }} "
        f"ORDER BY DESC(STRSTARTS(?norm, {literal(normalized)})) STRLEN(?norm) LIMIT {int(limit)}"
    )


#: Virtuoso's free-text wildcards need this many characters before the `*` (error FT370).
VIRTUOSO_WILDCARD_MIN = 4


def virtuoso_text_expr(tokens: Sequence[str]) -> str | None:
    """A `bif:contains` expression that finds a superset of the names matching `tokens`
    (the SPARQL filter narrows it to the exact rule), or None when no token can be asked.

    Tokens of 4+ characters become prefix terms `"toke*"`; shorter ones whole words
    `"tom"` (Virtuoso refuses shorter wildcards), except the last of several (typed half
    way: the filter checks it). So on Virtuoso a token under 4 characters finds names
    with that word, not with a longer word starting with it ("tom" finds "Tom Hanks",
    not "Tomas"), unless other tokens led the index there. Only
    letters and digits get in (a token with `_` is left to the filter), always between
    double quotes: words, never operators (`AND`, `NEAR`, `-`, `*` or quotes of the query)."""
    terms = []
    for i, token in enumerate(tokens):
        if not token.isalnum():
            continue
        if len(token) >= VIRTUOSO_WILDCARD_MIN:
            terms.append(f'"{token}*"')
        elif i < len(tokens) - 1 or len(tokens) == 1:
            terms.append(f'"{token}"')
    return " AND ".join(terms) or None


def search_text_query(normalized: str, tokens: Sequence[str], limit: int) -> str:
    """Partial matches through Virtuoso's free-text index on the normalised names: the
    shortest `limit` names the index finds, narrowed by the token rule. Without a word
    to ask the index (tokens of `_`), names starting with the query, by a scan that
    stops at `limit`: Virtuoso has no index for STRSTARTS, and its `>=`/`<` on these
    literals does not follow string order (measured: no range reads)."""
    norm_p, name_p = iri_ref(NORM_NAME_IRI), iri_ref(NAME_IRI)
    expr = virtuoso_text_expr(tokens)
    if expr is None:
        found = f"FILTER(STRSTARTS(?norm, {literal(normalized)})) }} LIMIT {int(limit)}"
    else:
        found = (f"?norm bif:contains {literal(expr)} . FILTER({_token_filter(tokens)}) }} "
                 f"ORDER BY STRLEN(?norm) LIMIT {int(limit)}")
    return (
        f"SELECT ?e ?n ?norm WHERE {{ {{ SELECT ?e ?norm WHERE {{ ?e {norm_p} ?norm . {found} }} "
        f"?e {name_p} ?n . {NAME_FILTER} }}"
    )


def text_index_probe_query(entity_iri: str, token: str) -> str:
    """Does the free-text index know this entity's normalised name (by one of its words)?"""
    expr = f'"{token}"' if token.isalnum() else None
    if expr is None:
        raise ValueError(f"not a probe word: {token!r}")
    return (
        f"SELECT ?norm WHERE {{ {iri_ref(entity_iri)} {iri_ref(NORM_NAME_IRI)} ?norm . "
        f"?norm bif:contains {literal(expr)} }} LIMIT 1"
    )


def a_normalized_name_query() -> str:
    return f"SELECT ?e ?norm WHERE {{ ?e {iri_ref(NORM_NAME_IRI)} ?norm }} LIMIT 20"


def degrees_query(ids: Sequence[str]) -> str:
    """Facts between entities per (id, relation), out- and in-edges together (a fact from
    an id to itself is a row of each branch: counted twice). VALUES sits in each branch,
    so no engine joins it after the fact; no BIND in the branches: Virtuoso 7 fails
    to compile that (SP031, "equiv replaces filter")."""
    ids_values = values("s", ids)
    return (
        f"SELECT ?s ?p (COUNT(*) AS ?c) WHERE {{ {{ {ids_values} ?s ?p ?o . FILTER(isIRI(?o)) }} "
        f"UNION {{ {ids_values} ?o ?p ?s . }} }} GROUP BY ?s ?p"
    )


def directed_degrees_query(ids: Sequence[str]) -> str:
    """`degrees_query` per direction too: (?s ?p ?d ?c), ?d "out" or "in"."""
    ids_values = values("s", ids)
    return (
        f'SELECT ?s ?p ?d (COUNT(*) AS ?c) WHERE {{ {{ SELECT ?s ?p ("out" AS ?d) WHERE {{ {ids_values} ?s ?p ?o . '
        f'FILTER(isIRI(?o)) }} }} UNION {{ SELECT ?s ?p ("in" AS ?d) WHERE {{ {ids_values} ?o ?p ?s . }} }} }} '
        f"GROUP BY ?s ?p ?d"
    )


def capped_relation_edges_queries(reads: Sequence[tuple[str, str]], direction: str, limit: int) -> list[str]:
    """At most `limit` edges of each (entity, relation) in `reads`, one direction ("out" or
    "in"), with names: a sub-select with its LIMIT each, in one query."""
    (dir_name, pattern), = edge_patterns(direction)
    return [_edges_select(dir_name, " UNION ".join(_capped(entity, [relation], pattern, limit)
                                                   for entity, relation in reads))]


def _capped(entity: str, relations: Collection[str] | None, pattern: str, limit: int) -> str:
    """A sub-select of `entity`'s edges (`pattern`, of `relations` or any), at most `limit`."""
    return f"{{ SELECT ?s ?r ?x WHERE {{ {values('s', [entity])} {_relation_values(relations)} {pattern} }} LIMIT {int(limit)} }}"


def bounded_degrees_query(entity: str, rows: int) -> str:
    """Facts between entities touching one entity per (direction, relation), reading at most
    `rows` of its out-edges and `rows` of its in-edges: a direction whose counts add up to
    `rows` was cut short."""
    node = iri(entity)
    return (
        f'SELECT ?d ?p (COUNT(*) AS ?c) WHERE {{ {{ SELECT ?p ("out" AS ?d) WHERE {{ {node} ?p ?o . '
        f"FILTER(isIRI(?o)) }} LIMIT {int(rows)} }} UNION "
        f'{{ SELECT ?p ("in" AS ?d) WHERE {{ ?o ?p {node} . }} LIMIT {int(rows)} }} }} GROUP BY ?d ?p'
    )


def stats_queries() -> dict[str, str]:
    meta = _an_attribute("p")
    return {
        "triples": f"SELECT (COUNT(*) AS ?c) WHERE {{ ?s ?p ?o . FILTER({meta}) }}",
        "entities": (  # a name or a count is a fact of an entity; the store's own facts (its marks, notes) are not
            f"SELECT (COUNT(DISTINCT ?e) AS ?c) WHERE {{ {{ ?e ?p ?o FILTER(?e != {iri_ref(STORE_IRI)}) }} "
            "UNION { ?s ?p ?e . FILTER(isIRI(?e)) } }"
        ),
        "relations": f"SELECT (COUNT(DISTINCT ?p) AS ?c) WHERE {{ ?s ?p ?o . FILTER({meta}) }}",
    }


def relation_names_query() -> str:
    """Every predicate: a scan of the predicate index (no filter on the objects, which
    would make it a scan of every fact: 1.8 s against 0.23 s on 500k facts in Oxigraph)."""
    return "SELECT DISTINCT ?p WHERE { ?s ?p ?o }"


def relation_counts_query() -> str:
    """Facts between entities per relation (names are literals: never counted)."""
    return "SELECT ?p (COUNT(*) AS ?c) WHERE { ?s ?p ?o . FILTER(isIRI(?o)) } GROUP BY ?p"


def reaches_twice_query(relation: str, forward: bool, reached: Sequence[str]) -> str:
    """A row when walking `relation` (`forward`: head to tail) reaches one of `reached` from
    two entities: the engine stops at the first two edges found, however big a hub. The
    entities are given, not a sub-select: Virtuoso then looks each up (a median of 8 ms
    against 41 the first time, on 20M facts: results/2026-11-29/bench/probes)."""
    rel = iri(relation)
    if forward:  # two heads of one tail
        return f"SELECT ?o WHERE {{ {values('o', reached)} ?a {rel} ?o . ?b {rel} ?o . FILTER(?a != ?b) }} LIMIT 1"
    return (f"SELECT ?s WHERE {{ {values('s', reached)} ?s {rel} ?a . ?s {rel} ?b . "
            f"FILTER(isIRI(?a) && isIRI(?b) && ?a != ?b) }} LIMIT 1")


def entities_with_query(relation: str, direction: str, limit: int) -> str:
    """The distinct heads (`out`) or tails (`in`) of a relation's entity-to-entity facts."""
    var = "?s" if direction == "out" else "?o"
    return f"SELECT DISTINCT {var} WHERE {{ ?s {iri(relation)} ?o . FILTER(isIRI(?o)) }} LIMIT {int(limit)}"
