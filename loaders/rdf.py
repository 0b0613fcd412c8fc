"""RDF in the formats people keep their graphs in: Turtle, N-Triples, N-Quads, TriG and
RDF/XML through pyoxigraph's streaming parsers, JSON-LD through rdflib (which reads a
document whole). Plain or gzipped (`.ttl.gz`); the format comes from the file's suffix or
is given.

What a KGQA agent walks is kept as for Freebase (loaders.freebase_nt):
- IRIs become ids as kg_store.ids maps them back: a Freebase IRI gives its local id
  (`m.0abc`), any other IRI is its own id and round-trips through `to_iri`/`from_iri`.
- Literals of the label predicates (rdfs:label, skos:prefLabel, schema:name, Freebase's
  type.object.name: Wikidata's labels are the first three) name their subject: the first
  label in the preferred language (or with no language) found; an entity with labels in
  other languages only is named by the first of those, at the end of the file.
- Other literals are attributes, in the preferred language or with no language.
- Blank nodes are unnamed nodes whose ids are stable for the file (`_:<hash of the path>:label`),
  so that loading the same file again adds nothing.
- Relations under the schema prefixes are skipped, as for every format; so are graph
  names (N-Quads and TriG load into one graph) and RDF 1.2 triple terms, each counted.
- A statement that does not parse is counted as malformed with its line and the parser
  goes on with the next one (strict loads stop at the first); a file none of whose first
  statements parse is not that format at all, and says so. Relative IRIs are malformed
  unless a base IRI is given (never resolved against the working directory).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from kg_store.ids import FREEBASE_NS, MAX_ID_CHARS, NAME_RELATION, from_iri, is_internal_iri
from kg_store.model import Attribute, Triple
from loaders.records import Malformed, MalformedInput, Name, Record, Skipped, id_problem

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
LANG_STRING = RDF + "langString"

# Wikidata's dumps label every entity with all of rdfs:label, skos:prefLabel and schema:name.
DEFAULT_LABEL_PREDICATES: tuple[str, ...] = (
    RDFS + "label",
    SKOS + "prefLabel",
    "http://schema.org/name",
    "https://schema.org/name",
    FREEBASE_NS + NAME_RELATION,
)
DEFAULT_LABEL_LANGUAGE = "en"
ANY_LANGUAGE = ("*", "")

# Prefixes a label predicate may be written with (`--label-predicate skos:altLabel`).
PREFIXES = {
    "rdf": RDF,
    "rdfs": RDFS,
    "skos": SKOS,
    "schema": "http://schema.org/",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "dc": "http://purl.org/dc/elements/1.1/",
    "dcterms": "http://purl.org/dc/terms/",
    "owl": "http://www.w3.org/2002/07/owl#",
    "fb": FREEBASE_NS,
}

JSON_LD = "json-ld"
RDF_FORMATS: dict[str, ox.RdfFormat | None] = {
    "turtle": ox.RdfFormat.TURTLE,
    "n-triples": ox.RdfFormat.N_TRIPLES,
    "n-quads": ox.RdfFormat.N_QUADS,
    "trig": ox.RdfFormat.TRIG,
    "rdf-xml": ox.RdfFormat.RDF_XML,
    JSON_LD: None,  # rdflib
}
SUFFIXES = {
    ".ttl": "turtle", ".turtle": "turtle",
    ".nt": "n-triples", ".ntriples": "n-triples",
    ".nq": "n-quads", ".nquads": "n-quads",
    ".trig": "trig",
    ".rdf": "rdf-xml", ".owl": "rdf-xml", ".xml": "rdf-xml", ".rdfxml": "rdf-xml",
    ".jsonld": JSON_LD, ".json": JSON_LD,
}
# So many malformed statements before the first good one: the file is not this format.
NOT_THIS_FORMAT_AFTER = 100
# Entities kept in memory to name each once, and the labels held back for entities with
# no label in the preferred language yet. Past the first cap the set starts again (an
# entity may then get a second name, which no store minds); past the second, further
# fallback labels are dropped (counted).
NAMED_CAP = 2_000_000
FALLBACK_CAP = 1_000_000
# pyoxigraph names a blank node the file leaves anonymous (`[ ... ]`, a nested RDF/XML
# description) with 128 random bits in hex (no leading zeros), its first digit a letter: a
# new id every run. A file's own label of that shape is renumbered too, harmlessly.
_GENERATED_BNODE = re.compile(r"[a-f][0-9a-f]{11,31}")


@dataclass(frozen=True)
class RdfOptions:
    """How to read an RDF file: its format (None: from the suffix), the predicates whose
    literals are names, the preferred language ('*': any), and the base of relative IRIs."""

    rdf_format: str | None = None
    label_predicates: tuple[str, ...] = DEFAULT_LABEL_PREDICATES
    label_language: str = DEFAULT_LABEL_LANGUAGE
    base_iri: str | None = None

    def __post_init__(self) -> None:
        if self.rdf_format is not None and self.rdf_format not in RDF_FORMATS:
            raise ValueError(f"unknown RDF format {self.rdf_format!r}: expected one of {', '.join(RDF_FORMATS)}")
        object.__setattr__(self, "label_predicates", tuple(expand_iri(p) for p in self.label_predicates))
        language = self.label_language.strip().lower()
        if language not in ANY_LANGUAGE and not re.fullmatch(r"[a-z]{2,3}(-[a-z0-9]{1,8})*", language):
            raise ValueError(f"not a language tag (en, de, pt-br) nor '*': {self.label_language!r}")
        object.__setattr__(self, "label_language", language)


def expand_iri(value: str) -> str:
    """`rdfs:label` -> its IRI; an absolute IRI stays as it is (`<...>` brackets dropped)."""
    value = value.strip().removeprefix("<").removesuffix(">")
    prefix, sep, local = value.partition(":")
    if sep and prefix in PREFIXES and not local.startswith("//"):
        return PREFIXES[prefix] + local
    if not sep or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", prefix) or re.search(r"[\s<>\"{}|^`\\]", value):
        known = ", ".join(f"{p}:" for p in PREFIXES)
        raise ValueError(f"not an absolute IRI nor a known prefixed name ({known}): {value!r}")
    return value


def rdf_format_of(path: Path, explicit: str | None = None) -> str:
    """The explicit format, or the one the suffix names (`.ttl`, `.nt.gz`, ...)."""
    if explicit:
        return explicit
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    fmt = SUFFIXES.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        known = ", ".join(sorted(SUFFIXES))
        raise MalformedInput(str(path), 0, f"cannot tell the RDF format from the name (known suffixes: {known}, "
                                           f"optionally .gz): give it with --rdf-format ({', '.join(RDF_FORMATS)})")
    return fmt


def parse_rdf(
    path: Path,
    schema_prefixes: tuple[str, ...],
    on_bytes: Callable[[int], None] | None = None,
    options: RdfOptions | None = None,
) -> Iterator[Record]:
    options = options or RdfOptions()
    fmt = rdf_format_of(path, options.rdf_format)
    out = _Emitter(path, schema_prefixes, options)
    if fmt == JSON_LD:
        yield from _guarded(path, fmt, _json_ld(path, options, out, on_bytes))
    else:
        yield from _guarded(path, fmt, _oxigraph(path, RDF_FORMATS[fmt], options, out, on_bytes))
    yield from out.fallback_names()


def _guarded(path: Path, fmt: str, records: Iterable[Record]) -> Iterator[Record]:
    """The records, unless the file opens with nothing but malformed statements."""
    good = bad = 0
    first: Malformed | None = None
    for record in records:
        if isinstance(record, Malformed):
            bad += 1
            first = first or record
            if not good and bad >= NOT_THIS_FORMAT_AFTER:
                raise MalformedInput(str(path), first.line_no, f"not {fmt}: the first {bad} statements are all "
                                     f"malformed, the first with: {first.reason}")
        else:
            good += 1
        yield record


# ---- the parsers ----------------------------------------------------------------------
class _Progress(io.RawIOBase):
    """A binary stream for pyoxigraph that reports bytes read from the file (compressed
    bytes for .gz) every ~1 MB."""

    def __init__(self, raw: io.BufferedReader, stream: Any, on_bytes: Callable[[int], None] | None) -> None:
        self.raw, self.stream, self.on_bytes, self.reported = raw, stream, on_bytes, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.stream.read(len(buffer))
        buffer[: len(data)] = data
        if self.on_bytes is not None:
            pos = self.raw.tell()
            if pos - self.reported >= 1 << 20 or not data:
                self.on_bytes(pos - self.reported)
                self.reported = pos
        return len(data)


def _open(path: Path) -> tuple[io.BufferedReader, Any]:
    raw = open(path, "rb")  # noqa: SIM115 - closed by the caller
    # Closing `raw` is enough: the gzip reader holds nothing else.
    return raw, (gzip.open(raw) if path.suffix.lower() == ".gz" else raw)


def _oxigraph(
    path: Path, fmt: ox.RdfFormat | None, options: RdfOptions, out: _Emitter, on_bytes: Callable[[int], None] | None
) -> Iterator[Record]:
    named_node, blank_node, literal = ox.NamedNode, ox.BlankNode, ox.Literal
    # Only formats with anonymous nodes get generated blank-node ids to renumber.
    bnode = out.bnode_renumbered if fmt not in (ox.RdfFormat.N_TRIPLES, ox.RdfFormat.N_QUADS) else out.bnode
    raw, stream = _open(path)
    with raw:
        quads = ox.parse(_Progress(raw, stream, on_bytes), fmt, base_iri=options.base_iri)
        while True:
            try:
                quad = next(quads)
            except StopIteration:
                break
            except SyntaxError as exc:
                yield Malformed(exc.lineno or 0, exc.msg)
                continue
            except (OSError, EOFError) as exc:  # a truncated gzip, an unreadable file
                raise MalformedInput(str(path), 0, f"cannot read file: {exc}") from exc
            s, p, o = quad.subject, quad.predicate.value, quad.object
            kind = type(s)
            subject = s.value if kind is named_node else bnode(s.value) if kind is blank_node else None
            kind = type(o)
            if kind is literal:
                datatype = o.datatype.value
                yield from out.literal(subject, p, o.value, o.language, datatype)
            else:
                obj = o.value if kind is named_node else bnode(o.value) if kind is blank_node else None
                yield from out.fact(subject, p, obj)


# rdflib resolves relative IRIs against the working directory when given no base: against
# this one instead, they are found and counted as malformed, as pyoxigraph's parsers do.
_NO_BASE = "urn:kgqa:no-base:/"


def _json_ld(path: Path, options: RdfOptions, out: _Emitter, on_bytes: Callable[[int], None] | None) -> Iterator[Record]:
    """JSON-LD is framed as a whole document, so rdflib reads it whole (memory grows with
    the file). A remote @context is fetched by rdflib, as any JSON-LD processor does."""
    from urllib.error import URLError

    import rdflib

    raw, stream = _open(path)
    with raw:
        try:
            data = stream.read()
        except (OSError, EOFError) as exc:
            raise MalformedInput(str(path), 0, f"cannot read file: {exc}") from exc
        if on_bytes is not None:
            on_bytes(raw.tell())
    dataset = rdflib.Dataset()
    try:
        with warnings.catch_warnings():  # rdflib's parser calls its own deprecated classes
            warnings.simplefilter("ignore", DeprecationWarning)
            dataset.parse(data=data, format="json-ld", publicID=options.base_iri or _NO_BASE)
    except URLError as exc:
        raise MalformedInput(str(path), 0, f"its @context could not be fetched ({exc.reason}): "
                                           "put the context in the file, or point to a local copy") from exc
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:  # JSON syntax, a bad document
        yield Malformed(getattr(exc, "lineno", 0) or 0, f"not JSON-LD: {exc}")
        return
    uri, bnode, literal = rdflib.URIRef, rdflib.BNode, rdflib.Literal

    def term(node: Any) -> str | None:
        if isinstance(node, uri):
            return str(node)
        return out.bnode_renumbered(str(node), always=True) if isinstance(node, bnode) else None

    for s, p, o, _graph in dataset.quads((None, None, None, None)):
        if not isinstance(p, uri):
            yield Skipped("blank-node predicate")
            continue
        if options.base_iri is None and any(isinstance(t, uri) and t.startswith(_NO_BASE) for t in (s, p, o)):
            relative = next(t for t in (s, p, o) if isinstance(t, uri) and t.startswith(_NO_BASE))
            yield Malformed(0, f"a relative IRI {relative[len(_NO_BASE):]!r} and no base to resolve it (--base-iri)")
        elif isinstance(o, literal):
            datatype = str(o.datatype) if o.datatype is not None else None
            yield from out.literal(term(s), str(p), str(o), o.language, datatype)
        else:
            yield from out.fact(term(s), str(p), term(o))


# ---- from RDF terms to records ----------------------------------------------------------
class _Emitter:
    """Turns (subject, predicate, object) into records. Subjects and objects are IRIs or
    blank-node ids already made (`_:...`), None for a triple term."""

    def __init__(self, path: Path, schema_prefixes: tuple[str, ...], options: RdfOptions) -> None:
        self.tag = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]
        self.schema_prefixes = schema_prefixes
        self.labels = frozenset(options.label_predicates)
        language = options.label_language
        self.any_language = language in ANY_LANGUAGE
        self.language, self.subtag = language, language + "-"
        self.renumbered: dict[str, str] = {}
        self.relations: dict[str, str | None] = {}  # predicate IRI -> id, None: not storable
        self.named: set[str] = set()
        self.fallback: dict[str, str] = {}

    # blank nodes
    def bnode(self, label: str) -> str:
        return f"_:{self.tag}:{label}"

    def bnode_renumbered(self, label: str, always: bool = False) -> str:
        """A generated label gets the number of its first appearance, the same every run.
        The table holds each such label of the file: memory grows with the anonymous nodes
        of a Turtle, TriG or RDF/XML file (N-Triples and N-Quads have none to renumber)."""
        if not always and not _GENERATED_BNODE.fullmatch(label):
            return f"_:{self.tag}:{label}"
        found = self.renumbered.get(label)
        if found is None:
            found = self.renumbered[label] = f"_:{self.tag}:#{len(self.renumbered) + 1}"
        return found

    # terms
    def _relation(self, predicate: str) -> str | None:
        if predicate not in self.relations:
            self.relations[predicate] = None if is_internal_iri(predicate) else from_iri(predicate)
        return self.relations[predicate]

    def _preferred(self, language: str | None) -> bool:
        if not language or self.any_language:
            return True
        language = language.lower()
        return language == self.language or language.startswith(self.subtag)

    @staticmethod
    def _problem(*ids: str) -> str | None:
        # IRIs and blank-node labels hold no control characters once parsed by pyoxigraph;
        # rdflib's may, and every id may be too long.
        return id_problem(*ids) if any(len(i) > MAX_ID_CHARS or not i.isprintable() for i in ids) else None

    def _storable(self, predicate: str, *terms: str | None) -> str | Skipped:
        """The predicate's relation id, or why the statement is not stored: one of its
        terms is a quoted triple (None here), or the predicate is kgqa's own index's."""
        if any(term is None for term in terms):
            return Skipped("triple term")
        relation = self._relation(predicate)
        return Skipped("kgqa index triple") if relation is None else relation

    def fact(self, subject: str | None, predicate: str, obj: str | None) -> Iterator[Record]:
        relation = self._storable(predicate, subject, obj)
        if isinstance(relation, Skipped):
            yield relation
            return
        head, tail = from_iri(subject), from_iri(obj)
        if problem := self._problem(head, relation, tail):
            yield Malformed(0, problem)
        elif relation.startswith(self.schema_prefixes):
            yield Skipped("schema relation")
        else:
            yield Triple(head, relation, tail)

    def literal(
        self, subject: str | None, predicate: str, value: str, language: str | None, datatype: str | None
    ) -> Iterator[Record]:
        relation = self._storable(predicate, subject)
        if isinstance(relation, Skipped):
            yield relation
            return
        entity = from_iri(subject)
        if problem := self._problem(entity, relation):
            yield Malformed(0, problem)
            return
        if predicate in self.labels:
            yield from self._label(entity, value, self._preferred(language))
        elif relation.startswith(self.schema_prefixes):
            yield Skipped("schema relation")
        elif not self._preferred(language):
            yield Skipped("literal in another language")
        else:
            plain = language or datatype in (None, XSD_STRING, LANG_STRING)
            yield Attribute(entity, relation, value, language or None, None if plain else datatype)

    def _label(self, entity: str, name: str, preferred: bool) -> Iterator[Record]:
        if not name.strip():
            yield Skipped("empty label")
        elif entity in self.named:
            yield Skipped("another label of a named entity")
        elif preferred:
            if len(self.named) >= NAMED_CAP:
                self.named.clear()
            self.named.add(entity)
            if self.fallback.pop(entity, None) is not None:
                yield Skipped("label in another language")
            yield Name(entity, name)
        elif entity in self.fallback or len(self.fallback) >= FALLBACK_CAP:
            yield Skipped("label in another language")
        else:
            self.fallback[entity] = name  # named by it at the end, if no preferred label comes

    def fallback_names(self) -> Iterator[Record]:
        for entity, name in self.fallback.items():
            yield Name(entity, name)
        self.fallback.clear()
