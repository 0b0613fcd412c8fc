"""How ids map to RDF IRIs, and the name normalisation used for entity search.

Freebase-shaped ids (`m.0abc`, `film.actor.film`) live in Freebase's own namespace so a
store we load is queryable like any Freebase dump (PoG's SPARQL works unchanged), and an
existing Freebase Virtuoso can be used as it is. Every other id (MetaQA's `Tom Hanks`,
FB15k-237's joined `a.b/c.d` relations) is percent-encoded under `urn:kgqa:`; the
mapping is reversible and no character of an id ever reaches query text unescaped.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from urllib.parse import quote, unquote

from kg_store.errors import InvalidId

FREEBASE_NS = "http://rdf.freebase.com/ns/"
LOCAL_NS = "urn:kgqa:"
NAME_RELATION = "type.object.name"
NAME_IRI = FREEBASE_NS + NAME_RELATION
# Our own index triple: the normalised name, for exact-normalised and prefix search.
NORM_NAME_IRI = LOCAL_NS + "meta:normName"
# A SPARQL store's own counts of its big entities' facts, written when it is settled
# (`SparqlStore.after_load`): facts out (literals too) and in, of each entity with more than
# the store says (COUNTED_OVER_IRI of STORE_IRI); and of the biggest, their facts between
# entities of each relation and direction, as "COUNT RELATION-IRI" literals.
FACTS_OUT_IRI = LOCAL_NS + "meta:factsOut"
FACTS_IN_IRI = LOCAL_NS + "meta:factsIn"
FACTS_OUT_BY_IRI = LOCAL_NS + "meta:factsOutBy"
FACTS_IN_BY_IRI = LOCAL_NS + "meta:factsInBy"
STORE_IRI = LOCAL_NS + "meta:store"
COUNTED_OVER_IRI = LOCAL_NS + "meta:countedOver"
# ... and, as facts of STORE_IRI too, which relations reach an entity twice: "forward
# RELATION" (its id) where walking one head to tail does ("backward RELATION": tail to head),
# judged as `GraphStore.reached_twice` judges it, on the sample REACHED_TWICE_SAMPLE_IRI says.
REACHED_TWICE_IRI = LOCAL_NS + "meta:reachedTwice"
REACHED_TWICE_SAMPLE_IRI = LOCAL_NS + "meta:reachedTwiceSample"

_FREEBASE_LOCAL = re.compile(r"[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)+")
MAX_ID_CHARS = 2048
_CONTROL = re.compile(r"[\x00-\x1f]")


def check_id(value: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_ID_CHARS:
        raise InvalidId(f"invalid id {value!r}: must be a non-empty string of at most {MAX_ID_CHARS} chars")
    if has_control_character(value):
        raise InvalidId(f"invalid id {value!r}: control characters are not allowed")
    return value


def has_control_character(value: str) -> bool:
    return _CONTROL.search(value) is not None


def is_freebase_local(value: str) -> bool:
    """A Freebase-shaped id (`m.0abc`, `film.film.directed_by`): its IRI is Freebase's
    namespace and the id, with nothing to check or escape."""
    return isinstance(value, str) and len(value) <= MAX_ID_CHARS and _FREEBASE_LOCAL.fullmatch(value) is not None


@lru_cache(maxsize=1 << 18)  # loads and walks convert the same ids again and again
def to_iri(value: str) -> str:
    if is_freebase_local(value):
        return FREEBASE_NS + value
    check_id(value)
    return LOCAL_NS + quote(value, safe="")


def from_iri(iri: str) -> str:
    if iri.startswith(FREEBASE_NS):
        return iri[len(FREEBASE_NS) :]
    if iri.startswith(LOCAL_NS):
        return unquote(iri[len(LOCAL_NS) :])
    return iri  # a foreign IRI (e.g. rdf:type in someone else's store) stays as it is


def is_internal_iri(iri: str) -> bool:
    return iri.startswith(LOCAL_NS + "meta:")


_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=1 << 16)  # a load normalises each name twice: its index triple, the name index
def normalize_name(text: str) -> str:
    """Lowercase, strip accents and punctuation, collapse spaces: 'Amélie (film)' -> 'amelie film'."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = _PUNCT.sub(" ", text.lower())
    return _SPACE.sub(" ", text).strip()


# A prefixed name's prefix (`dbo:`, `schema:`): a namespace, no word of the relation.
_CURIE_PREFIX = re.compile(r"^[A-Za-z][\w-]*:(?!//)")
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def relation_words(relation: str) -> str:
    """`film.film.directed_by` -> `film directed by`: closer to how questions speak
    (the domain prefix repeats the type and adds nothing). An IRI's local name, or a
    prefixed name's, its camel case split: `http://www.w3.org/2000/01/rdf-schema#subClassOf`
    -> `sub class of`, `dbo:birthPlace` and `birthPlace` -> `birth place` (a KG's relations
    loaded from a table keep the names its source gave them)."""
    if "://" in relation:
        return _local_name_words(re.split(r"[#/]", relation.rstrip("/#"))[-1])
    segments = _CURIE_PREFIX.sub("", relation).replace("/", ".").split(".")
    words = " ".join(segments[-2:] if len(segments) > 2 else segments)
    # Without camel case, as before: underscores only, case and hyphens kept (Freebase's and
    # MetaQA's names read exactly as they did, and with them every memory and ranking).
    return _local_name_words(words) if _CAMEL_HUMP.search(words) else words.replace("_", " ")


def _local_name_words(name: str) -> str:
    return " ".join(_CAMEL_HUMP.sub(" ", name).replace("_", " ").replace("-", " ").split()).lower()


# Relations whose tails describe their head: a vocabulary's convention rather than the
# name's letters (schema.org's `keywords`: "tags used to describe" an item). Questions ask
# for them by what they do, "which words describe X", "what is X about", words the small
# model never writes for a relation named `has_tags`.
_DESCRIBING_NOUNS = frozenset({"tag", "tags", "keyword", "keywords"})
DESCRIBING_WORDS = ("describe", "about")


def describes_its_head(relation: str) -> bool:
    """`has_tags`, `schema:keywords`: the relation's tails are words that describe its head."""
    words = relation_words(relation).split()
    return bool(words) and words[-1].lower() in _DESCRIBING_NOUNS


def head_type_words(relation: str) -> str | None:
    """`people.cause_of_death.people` -> `cause of death`: the type of the relation's
    heads, which Freebase-style names (domain.type.property) carry; None for a name
    without one (`directed_by`, an IRI). A walk backwards reaches it: from a person,
    `~people.cause_of_death.people` reaches "the cause of death of X"."""
    segments = [s for s in relation.replace("/", ".").split(".") if s] if "://" not in relation else []
    return segments[-2].replace("_", " ") if len(segments) >= 3 else None
