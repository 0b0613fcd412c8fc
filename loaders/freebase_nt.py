"""Freebase RDF N-Triples (.nt / .nt.gz), streamed line by line.

Keeps what a KGQA agent walks: entity-to-entity facts in Freebase's namespace, English
(or untagged) names from `type.object.name`, and English or untagged literal attributes.
Drops schema relations (configurable prefixes), non-English literals and triples whose
terms are outside Freebase's namespace (rdf:type, keys), each counted by reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

from kg_store.ids import FREEBASE_NS, MAX_ID_CHARS, NAME_RELATION
from kg_store.model import Attribute, Triple
from loaders.records import Malformed, Name, Record, Skipped, id_problem
from loaders.textio import iter_lines

_IRI = r'<([^<>"{}|^`\\\x00-\x20]*)>'
# Most lines link two Freebase entities: a pattern for just those, capturing the local
# names, matches about twice as fast and leaves no prefix checks to do in Python.
_FB_IRI = "<" + re.escape(FREEBASE_NS) + r'([^<>"{}|^`\\\x00-\x20]+)>'
_ENTITY_LINE = re.compile(_FB_IRI + r"[ \t]+" + _FB_IRI + r"[ \t]+" + _FB_IRI + r"[ \t]*\.[ \t]*")
_LINE = re.compile(
    _IRI + r"\s*" + _IRI + r"\s*"
    r'(?:' + _IRI + r'|"((?:[^"\\]|\\.)*)"(?:@([A-Za-z]+(?:-[A-Za-z0-9]+)*)|\^\^<([^<>"{}|^`\\\x00-\x20]*)>)?)'
    r"\s*\.\s*(?:#.*)?"
)
_ESCAPE = re.compile(r'\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))')
_SIMPLE = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_NS_LEN = len(FREEBASE_NS)


def _unescape_match(m: re.Match[str]) -> str:
    code = m.group(1) or m.group(2)
    if code:
        return chr(int(code, 16))
    char = m.group(3)
    if char not in _SIMPLE:
        raise ValueError(f"bad escape \\{char}")
    return _SIMPLE[char]


_SURROGATE = re.compile("[\ud800-\udfff]")


def unescape(value: str) -> str:
    if "\\" not in value:
        return value
    text = _ESCAPE.sub(_unescape_match, value)
    if _SURROGATE.search(text):
        # Some writers escape a character outside the BMP as a UTF-16 pair (\uD83D\uDE00):
        # join pairs; a lone half is no character at all.
        try:
            text = text.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeDecodeError:
            raise ValueError("an escaped unpaired surrogate (\\uD800-\\uDFFF) is not a character") from None
    return text


def parse_freebase_nt(
    path: Path, schema_prefixes: tuple[str, ...], on_bytes: Callable[[int], None] | None = None
) -> Iterator[Record]:
    entity_line, any_line = _ENTITY_LINE.fullmatch, _LINE.fullmatch
    for line_no, line in iter_lines(path, on_bytes):
        fast = entity_line(line)
        if fast is not None:
            subject, relation, obj = fast.groups()
            if len(line) > MAX_ID_CHARS and (problem := id_problem(subject, relation, obj)):
                yield Malformed(line_no, problem)  # IRIs hold no control characters: only length to check
            elif relation.startswith(schema_prefixes):
                yield Skipped("schema relation")
            else:
                yield Triple(subject, relation, obj)
            continue
        m = any_line(line)
        if m is None:
            line = line.strip()
            if not line or line[0] == "#":
                continue
            m = any_line(line)
        if m is None:
            yield Malformed(line_no, "not an N-Triples line")
            continue
        s, p, o_iri, o_lit, lang, datatype = m.groups()
        if not (s.startswith(FREEBASE_NS) and p.startswith(FREEBASE_NS)):
            yield Skipped("outside the Freebase namespace")
            continue
        subject, relation = s[_NS_LEN:], p[_NS_LEN:]
        if not subject or not relation:
            yield Malformed(line_no, "empty Freebase id")
            continue
        problem = id_problem(subject, relation, *([o_iri[_NS_LEN:]] if o_iri and o_iri.startswith(FREEBASE_NS) else []))
        if problem:
            yield Malformed(line_no, problem)
            continue
        if o_iri is not None:
            if relation.startswith(schema_prefixes):
                yield Skipped("schema relation")
            elif not o_iri.startswith(FREEBASE_NS) or len(o_iri) == _NS_LEN:
                yield Skipped("outside the Freebase namespace")
            else:
                yield Triple(subject, relation, o_iri[_NS_LEN:])
            continue
        if lang and lang.lower() != "en" and not lang.lower().startswith("en-"):
            yield Skipped("non-English literal")
            continue
        try:
            value = unescape(o_lit)
        except ValueError as exc:
            yield Malformed(line_no, str(exc))
            continue
        if relation == NAME_RELATION:
            yield Name(subject, value)
        elif relation.startswith(schema_prefixes):
            yield Skipped("schema relation")
        else:
            yield Attribute(subject, relation, value, lang, None if lang else datatype)
