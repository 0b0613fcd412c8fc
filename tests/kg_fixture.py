"""A small hand-built KG with Freebase's awkward shapes, shared by the store contract tests.

CVT (unnamed) nodes, a hub, schema relations, a literal attribute, accents, two entities
with one name, and ids and names built to break out of SPARQL and Cypher strings.
"""

from kg_store import Attribute, LoadBatch, Triple

XSD_DATE = "http://www.w3.org/2001/XMLSchema#date"
HUB_FANS = 30
INJECTION_ID = 'evil"> } UNION { ?s ?p ?o } #\'`) MATCH (n) DETACH DELETE n //'
INJECTION_NAME = 'Bobby "Tables"\'); DROP {x} `y` \\\nnew line end'

FACTS = [
    Triple("m.tom", "film.actor.film", "m.cvt1"),
    Triple("m.cvt1", "film.performance.film", "m.forrest"),
    Triple("m.cvt1", "film.performance.character", "m.forrest_char"),
    Triple("m.forrest", "film.film.directed_by", "m.zemeckis"),
    Triple("m.forrest", "film.film.genre", "m.drama"),
    Triple("m.amelie", "film.film.genre", "m.drama"),
    Triple("m.tom", "people.person.nationality", "m.usa"),
    Triple(INJECTION_ID, "film.film.genre", "m.drama"),
    Triple("Plain Name Entity", "related to", INJECTION_ID),
    Triple("m.big", "film.film.tag", "m.tag_tom"),  # MetaQA-style tag: the actor's name, lowercased
] + [Triple(f"m.fan{i}", "people.person.nationality", "m.usa") for i in range(HUB_FANS)]
SCHEMA_FACTS = [
    Triple("m.forrest", "type.object.type", "m.film_type"),
    Triple("m.forrest", "common.topic.notable_types", "m.ntype"),
]
NAMES = [
    ("m.tom", "Tom Hanks"),
    ("m.forrest", "Forrest Gump"),
    ("m.forrest_char", "Forrest Gump"),
    ("m.zemeckis", "Robert Zemeckis"),
    ("m.drama", "Drama"),
    ("m.amelie", "Amélie"),
    ("m.usa", "United States of America"),
    ("Plain Name Entity", "Plain Name Entity"),
    ("m.tag_tom", "tom hanks"),
    (INJECTION_ID, INJECTION_NAME),
] + [(f"m.fan{i}", f"Fan {i}") for i in range(HUB_FANS)]
ATTRIBUTES = [Attribute("m.tom", "people.person.date_of_birth", "1956-07-09", None, XSD_DATE)]

# Expected counts (schema facts are written too: the store keeps what it is given and
# filters schema relations on the way out).
N_TRIPLES = len(FACTS) + len(SCHEMA_FACTS) + len(ATTRIBUTES)
N_RELATIONS = len({t.relation for t in FACTS + SCHEMA_FACTS}) + 1
ENTITIES = {x for t in FACTS + SCHEMA_FACTS for x in (t.head, t.tail)} | {e for e, _ in NAMES}


def fixture_batch() -> LoadBatch:
    return LoadBatch(triples=FACTS + SCHEMA_FACTS, names=list(NAMES), attributes=list(ATTRIBUTES))
