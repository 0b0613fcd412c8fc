"""Topic entities for a question: the given ones the store knows, the others linked by
name (search proposes, embedding similarity decides), with every candidate kept."""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from pydantic import BaseModel

from agent.embeddings import Embedder
from kg_store import GraphStore
from kg_store.ids import normalize_name, relation_words
from kg_store.model import value_node
from kg_store.paths import NeighborCache

_BRACKETED = re.compile(r"\[([^\[\]]+)\]")
MAX_MENTIONS = 5


class Entity(BaseModel):
    id: str
    name: str | None = None


def resolve_topics(store: GraphStore, neighbours: NeighborCache, embedder: Embedder, question: str,
                   given: list[Entity], mentions: Callable[[], Sequence[str]] = tuple,
                   ) -> tuple[list[Entity], dict[str, list[Entity]]]:
    """Given topic entities that the store knows are used as they are; the others (names
    from RoG files, say) are linked by name, or are values the graph holds (`held_values`).
    With none given: bracketed names in the question, else the question's own words
    (`link_question`) and the values it writes that the graph holds (`value_mentions`),
    else the LLM's mentions (`mentions()`, called only then: asking costs a model call),
    else the question's capitalised words."""
    if given:
        edges, _ = neighbours.neighbors([t.id for t in given])
        known = [t for t in given if edges.get(t.id)]
        unknown = [t.name or t.id for t in given if not edges.get(t.id)]
        if not unknown:
            return known, {}
        values = held_values(store, neighbours, unknown)
        linked, candidates = link_entities(store, embedder, [m for m in unknown if m not in values])
        return _unique(known + list(values.values()) + linked), candidates
    topics, candidates = link_entities(store, embedder, _BRACKETED.findall(question))
    if topics:
        return topics, candidates
    links = link_question(store, question, limit=10)
    values = list(held_values(store, neighbours, value_mentions(question, links)).values())
    if links:  # every topic it names; the other candidates (names they share included) stay for the trace
        chosen = topics_named(links)
        candidates = {links[0].span: [Entity(id=k.id, name=k.name) for k in links]}
        for link in chosen[1:]:
            candidates.setdefault(link.span, [Entity(id=link.id, name=link.name)])
        return _unique([Entity(id=k.id, name=k.name) for k in chosen] + values), candidates
    if values:
        return values, {}
    topics, candidates = link_entities(store, embedder, [m for m in mentions() if isinstance(m, str) and m.strip()])
    if not topics:  # the model named nothing the store knows: try the question's capitalised names
        topics, candidates = link_entities(store, embedder, capitalised_spans(question))
    return topics, candidates


_NUMBER = re.compile(r"(?<![\w.])[+-]?\d(?:[\d,.:/-]*\d)?(?![\w])")
_CAPITALISED = re.compile(r"(?<![\w.'-])[A-Z][\w.+-]*(?<![.])")


def value_mentions(question: str, links: Sequence[Link] = ()) -> list[str]:
    """What a question may name a value by, where a graph keeps values as literals
    (`held_values` keeps those it holds): the numbers and dates it writes ("element number
    52", "born in 1815-12-10"), and its capitalised words after the first that no linked
    name covers (a symbol "Ta", a code "FR")."""
    numbers = _NUMBER.findall(question)
    covered = {word for link in links for word in link.span.split()}
    first = question.split(maxsplit=1)[0] if question.strip() else ""
    words = [w for w in _CAPITALISED.findall(question) if w not in covered and w != first]
    return list(dict.fromkeys(numbers + words))


def held_values(store: GraphStore, neighbours: NeighborCache, mentions: Sequence[str]) -> dict[str, Entity]:
    """The mentions that no entity is named but some entities hold as a literal value (an
    element's symbol "Ta", its atomic number "52" in an RDF graph), as value nodes: the
    walk starts there, at the entities holding it. Only where the walk reads values."""
    if not neighbours.values:
        return {}
    nodes = {mention: value_node(mention) for mention in mentions if mention.strip()}
    edges, _ = neighbours.neighbors(list(nodes.values()))
    return {mention: Entity(id=node, name=mention) for mention, node in nodes.items()
            if edges.get(node) and not any(m.match in ("exact", "normalized")
                                           for m in store.search_entities(mention, limit=3, partial=False))}


_QUESTION_WORDS = {"who", "what", "which", "where", "when", "why", "how", "whose", "whom", "name", "list", "is", "are",
                   "was", "were", "did", "does", "do", "in", "the", "a", "an"}
_SPAN = re.compile(r"[A-Z0-9][\w'.&!:-]*(?:\s+(?:(?:of|the|and|de|la|von|van|du|in)\s+)*[A-Z0-9][\w'.&!:-]*)*")


def capitalised_spans(question: str) -> list[str]:
    """Runs of capitalised words ("Forrest Gump", "Lord of the Rings"), longest first,
    without a leading question word ("Who directed ..." is not a name)."""
    spans = []
    for match in _SPAN.finditer(question):
        words = match.group(0).split()
        while words and words[0].lower() in _QUESTION_WORDS:
            words = words[1:]
        if words and (len(words) > 1 or len(words[0]) > 2):
            spans.append(" ".join(words).rstrip("?.!,:"))
    return sorted(dict.fromkeys(spans), key=len, reverse=True)


# Words that never start or end a name a question mentions ("what movies did ... direct").
_STOP = {*_QUESTION_WORDS, "of", "and", "or", "to", "for", "by", "with", "on", "at", "from", "as", "about", "that",
         "this", "these", "those", "it", "its", "he", "she", "they", "his", "her", "their", "whom", "also", "be",
         "been", "has", "have", "had", "can", "could", "would", "will", "there", "same", "other"}
_WORD = re.compile(r"[\w'.&!:-]+")
_PUNCTUATION = "?.!,:'"
MAX_SPAN_WORDS = 12  # MetaQA has titles of ten words and more
PARTIAL_SPAN_WORDS = 4  # longer spans are looked up as whole names only
SPAN_MATCHES = 20  # entities looked up per span: the more a span finds, the less it is a name


@dataclass(frozen=True)
class Link:
    """A candidate topic entity for a question: where it was found and how it ranks."""

    id: str
    name: str
    span: str  # the words of the question that name it
    strength: float  # the span's content words, times the share of the name they cover when only part of it
    whole: bool  # the span is the entity's whole name
    capitalised: bool  # the span starts with a capital in the question: a cue for a name
    exact: bool  # the span is the name as written (case included)
    degree: int


def question_spans(question: str, max_words: int = MAX_SPAN_WORDS) -> list[str]:
    """Every run of up to `max_words` words that is not all stop words, longest first: the
    places a name can sit in a raw question ("The Deep", "Where Eagles Dare" start with one).
    A run with a possessive is also tried without it ("utah's" -> "utah"; "Joe's Palace" stays)."""
    words = _WORD.findall(question)
    spans = []
    for size in range(min(max_words, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            run = words[start:start + size]
            if all(word.lower().strip(_PUNCTUATION) in _STOP for word in run):
                continue
            span = " ".join(run).strip(_PUNCTUATION)
            spans += [span, re.sub(r"'s\b", "", span)]
    return [s for s in dict.fromkeys(spans) if s]


def link_question(store: GraphStore, question: str, limit: int = 5) -> list[Link]:
    """Topic entity candidates from the question's text alone, best first. A span's strength
    is the number of its content words (stop words do not count) when it is an entity's whole
    name, as written or once normalised; when it is only part of a name, whole words of it
    ("bosnia" in "Bosnia and Herzegovina", never "many" in "Germany"; spans of up to
    PARTIAL_SPAN_WORDS words), that number times the share of the name's content words it
    covers, divided by 1 + the log of the number of names it is part of, since a span in many
    names is a common word ("people", "college"), not a name; halved when it is the word
    after "what"/"which" ("what language"), the kind of answer asked for; a quarter when
    all its words are words of the graph's relations (`schema_words`: "country"). A plural
    demonym ("brazilians") is also looked up as its place (`places_of_people`). The
    stronger span wins ("Tom Hanks" over "Tom"), a whole name before a part; then a span
    capitalised in the question ("Zookeeper" over "writer"); then a name written as in the
    question; then the better connected entity. Entities that share a name all stay among
    the candidates."""
    found: dict[str, Link] = {}
    asked_for = _answer_type_words(question)
    schema = schema_words(store)
    for span, lookup, partial in _lookups(question):
        span_words = _content_words(span)
        links = []
        for match in store.search_entities(lookup, limit=SPAN_MATCHES, partial=partial):
            whole = match.match in ("exact", "normalized")
            if whole:  # the span's other words break ties: "The Battle of Britain" over "Battle of Britain"
                strength = len(span_words) + 0.01 * len(span.split())
            else:
                name_words = _content_words(match.name)
                if not _contains_run(name_words, span_words):
                    continue  # inside a word, not a part of the name
                strength = len(span_words) * len(span_words) / len(name_words)
            links.append(Link(match.id, match.name, span, strength, whole, span[:1].isupper(), match.match == "exact", 0))
        parts = sum(not link.whole for link in links)
        # "what [language]" names the kind of answer asked for, rarely the topic: half strength
        weight = 0.5 if span_words and set(span_words) <= asked_for else 1.0
        if span_words and {_stem(word) for word in span_words} <= schema:
            weight *= SCHEMA_WORD_WEIGHT
        for link in links:
            # a span that is part of many names is a common word ("people", "college")
            common = 1.0 if link.whole else 1 + math.log(parts)
            link = replace(link, strength=link.strength * weight / common)
            if link.id not in found or _rank(link) < _rank(found[link.id]):
                found[link.id] = link
    if not found:
        return []
    degrees = store.degrees(list(found))
    return sorted((replace(link, degree=degrees.get(link.id, 0)) for link in found.values()), key=_rank)[:limit]


def topics_named(links: Sequence[Link]) -> list[Link]:
    """The topic entities a question names, from `link_question`'s ranking: the best link,
    and each further one that reads as another name in the question: an entity's whole
    name, at full strength (not the asked-for kind, not a relation's word), written with a
    capital or of two content words or more, and sharing no word with a name already
    taken ("which films did tom hanks make with meg ryan": Tom Hanks and Meg Ryan, not
    "Ryan"). PoG is built for several topics: their paths are joined where they meet."""
    chosen: list[Link] = []
    taken: set[str] = set()
    for link in links:
        words = set(_content_words(link.span))
        if chosen and not (link.whole and link.strength >= 1.0 and (link.capitalised or len(words) >= 2)):
            continue
        if words & taken:
            continue
        chosen.append(link)
        taken |= words
    return chosen


def _lookups(question: str) -> Iterator[tuple[str, str, bool]]:
    """What to look up for a question: (its words, the name to search, whether part of a
    name counts). Partial lookups only for short spans that start and end with a content
    word: "in the united states" finds fewer names than "united states" and so dodged the
    common-word penalty that the same content words earn."""
    for span in question_spans(question):
        words = span.lower().split()
        content_edged = words[0].strip(_PUNCTUATION) not in _STOP and words[-1].strip(_PUNCTUATION) not in _STOP
        yield span, span, len(words) <= PARTIAL_SPAN_WORDS and content_edged
    for demonym, place in places_of_people(question):
        yield demonym, place, False


# A demonym of six letters or more, as a plural ("brazilians") or before "people" ("colombian people").
_PEOPLE = re.compile(r"\b([a-z]{4,}(?:ian|an|ese))(s\b|\s+people\b)", re.IGNORECASE)


def places_of_people(question: str) -> list[tuple[str, str]]:
    """The people of a place ("what language do brazilians speak", "colombian people") are
    asked about through the place: (the demonym as written, a guess at the place's name).
    The guesses undo English demonym endings (russian -> russia, brazilian -> brazil,
    italian -> italy, ukrainian -> ukraine, japanese -> japan, maltese -> malta, german ->
    germany, mexican -> mexico); a guess the store has no entity for finds nothing."""
    places = []
    for match in _PEOPLE.finditer(question):
        word = match.group(1).lower()
        if word.endswith("ian"):
            guesses = [word[:-1], word[:-3], word[:-3] + "y", word[:-3] + "e"]
        elif word.endswith("ese"):
            guesses = [word[:-3], word[:-3] + "a"]
        else:
            guesses = [word[:-1], word + "y", word[:-2] + "o"]
        demonym = match.group(1) + ("s" if match.group(2) == "s" else "")
        places += [(demonym, guess) for guess in guesses]
    return places


SCHEMA_WORD_WEIGHT = 0.25  # dev WebQSP linking@1: 0.824 without, 0.837 at 0.5, 0.843 at 0.25; MetaQA unchanged
_RELATION_WORDS: weakref.WeakKeyDictionary[GraphStore, frozenset[str]] = weakref.WeakKeyDictionary()


def relation_vocabulary(store: GraphStore) -> frozenset[str]:
    """The words of the graph's relation names as written ("country" and "capital" from
    `location.country.capital`, "has" and "director" from an IRI's `hasDirector`). Read
    once per store (the relations of a store that is written to later are not seen again)."""
    if store not in _RELATION_WORDS:
        words = set()
        for relation in store.relation_names():
            text = relation_words(relation) if "://" in relation else relation.lower()
            words |= {word for word in re.split(r"[^a-z0-9]+", text) if word}
        _RELATION_WORDS[store] = frozenset(words)
    return _RELATION_WORDS[store]


def schema_words(store: GraphStore) -> frozenset[str]:
    """The graph's relation words, stemmed ("country" from `location.country.capital`): a
    question span made only of them most likely says which relation is asked about
    ("what country", "what form of government"), not which entity."""
    return frozenset(_stem(word) for word in relation_vocabulary(store))


# A question word spells a name's word differently ("mohammed" for "Muhammad",
# "portugese", "hutcherson" for the data's "Hutchersonm") from this similarity (difflib's
# ratio), when both have at least MIN_SPELLING_LETTERS letters.
SPELLING_SIMILARITY = 0.75
MIN_SPELLING_LETTERS = 5
_MENTION_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def mention_span(question: str, name: str, vocabulary: Collection[str] = frozenset()) -> tuple[int, int] | None:
    """Where the question names an entity whose name it does not write out, as (start, end)
    character offsets: the run of question words that are each a word of the name, a
    variant spelling of one, or its initials ("what form of government is the *uk*", "the
    *un*", "*jfk*", "*jrr* tolkien") with the most words that only the name can mean: not
    stop words, not words of the graph's relations (`vocabulary`, from
    `relation_vocabulary`): "language" of "English Language" is what "what is their official
    language" asks about, not the entity. None when no run has one."""
    name_words = [_plain(w) for w in _MENTION_WORD.findall(name)]
    content = [w for w in name_words if w not in _STOP]
    # "uk" for United Kingdom, "jrr" for J. R. R. Tolkien
    abbreviations = {"".join(w[0] for w in content) if len(content) >= 2 else "",
                     "".join(w for w in name_words if len(w) == 1)} - {""}

    def spelt_as(word: str) -> list[str]:  # the name's words that `word` is, or spells differently
        return [n for n in name_words if word == n or (min(len(word), len(n)) >= MIN_SPELLING_LETTERS
                                                       and SequenceMatcher(None, word, n).ratio() >= SPELLING_SIMILARITY)]

    def is_name_word(word: str) -> bool:
        return (len(word) >= 2 and word in abbreviations and word not in _STOP) or bool(spelt_as(word))

    def says_which(word: str) -> bool:
        """A word that can only be the name's: not a relation's word, nor another spelling of
        a name word that is one ("married" for the CVT topic "Marriage")."""
        singular = (word[:-1], word[:-3] + "y") if word.endswith("s") else ()
        return (word not in _STOP and word not in vocabulary and not any(s in vocabulary for s in singular)
                and not any(n != word and n in vocabulary for n in spelt_as(word)))

    tokens = list(_MENTION_WORD.finditer(question))
    words = [_plain(t.group(0)) for t in tokens]
    best: tuple[int, int, int] | None = None  # (substantive words, start token, end token)
    start = 0
    while start < len(tokens):
        end = start
        while end < len(tokens) and is_name_word(words[end]):
            end += 1
        first, last = start, end
        while first < last and words[first] in _STOP:
            first += 1
        while last > first and words[last - 1] in _STOP:
            last -= 1
        substantive = sum(says_which(w) for w in words[first:last])
        if substantive and (best is None or substantive > best[0]):
            best = (substantive, first, last)
        start = max(end, start + 1)
    if best is None:
        return None
    return tokens[best[1]].start(), tokens[best[2] - 1].end()


def _plain(word: str) -> str:
    """A word as names are compared: lowercase, no accents, no possessive ("utah's")."""
    return normalize_name(re.sub(r"['’]s$", "", word)).replace(" ", "")


def _stem(word: str) -> str:
    """A crude English stem, enough for "countries" ~ "country", "played" ~ "play"."""
    for suffix, replacement in (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ing", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + replacement
    return word


_ASKED_FOR = re.compile(r"\b(?:what|which)\s+(?:(?:kind|type|form|sort)s?\s+of\s+)?(\w+)", re.IGNORECASE)


def _answer_type_words(question: str) -> set[str]:
    """The word right after "what"/"which" ("what language", "which form of government"):
    the kind of answer asked for, rarely the topic."""
    return {normalize_name(m.group(1)) for m in _ASKED_FOR.finditer(question)}


def _content_words(text: str) -> list[str]:
    return [word for word in normalize_name(text).split() if word not in _STOP]


def _contains_run(words: list[str], run: list[str]) -> bool:
    return bool(run) and any(words[i:i + len(run)] == run for i in range(len(words) - len(run) + 1))


def _rank(link: Link) -> tuple:
    # Degree only breaks ties: weighed in (strength x log degree) it cost MetaQA 2-4 points.
    return -link.strength, not link.whole, not link.capitalised, not link.exact, -link.degree, link.id


def link_entities(store: GraphStore, embedder: Embedder, mentions: list[str], *,
                  min_similarity: float | None = None) -> tuple[list[Entity], dict[str, list[Entity]]]:
    """Each mention to the store's best match: name search proposes (exact, normalised,
    prefix, substring), and the match kind plus the embedding similarity of mention and
    name decides. With `min_similarity`, a mention whose best match is less alike than
    that (cosine of the two names' embeddings) links to nothing: a guessed name the graph
    lacks ("Orson Welles") must not stand for whatever shares a word with it. Every
    candidate is kept for the trace."""
    chosen: list[Entity] = []
    candidates: dict[str, list[Entity]] = {}
    for mention in list(dict.fromkeys(m.strip() for m in mentions))[:MAX_MENTIONS]:
        matches = store.search_entities(mention, limit=10)
        if not matches:
            continue
        candidates[mention] = [Entity(id=m.id, name=m.name) for m in matches]
        vectors = embedder.encode([mention, *(m.name for m in matches)])
        similarity = vectors[1:] @ vectors[0]
        best = max(range(len(matches)), key=lambda i: (matches[i].score + float(similarity[i]), -i))
        if min_similarity is None or float(similarity[best]) >= min_similarity:
            chosen.append(Entity(id=matches[best].id, name=matches[best].name))
    return _unique(chosen), candidates


def _unique(entities: list[Entity]) -> list[Entity]:
    return list({e.id: e for e in entities}.values())
