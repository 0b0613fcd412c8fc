"""Path groups from the store as the plain `PathCandidate`s the state holds: building
them, extending them by a hop, and writing them as text for prompts and embeddings."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from itertools import pairwise

from agent.pog.state import PathCandidate, Phase, StepTuple
from kg_store import UNNAMED
from kg_store.ids import DESCRIBING_WORDS, describes_its_head, relation_words
from kg_store.model import is_value_node
from kg_store.paths import NeighborCache, PathGroup


def entity_set(ids: Sequence[str], names: dict[str, str | None], limit: int) -> str:
    shown = [names.get(e) or UNNAMED for e in ids[:limit]]
    more = f" (+{len(ids) - limit} more)" if len(ids) > limit else ""
    return shown[0] if len(ids) == 1 else "{" + ", ".join(shown) + more + "}"


def _arrow(relation: str, forward: bool) -> str:
    return f"-> {relation} ->" if forward else f"<- {relation} <-"


def path_text(seed: str, steps: Sequence[StepTuple], hops: Sequence[Sequence[str]], names: dict[str, str | None],
              limit: int, joins: dict[str, list[StepTuple]] | None = None) -> str:
    """PoG's format: `Tom Hanks <- starred_actors <- {Big, Splash} -> directed_by -> {Penny Marshall, ...}`.
    A join to another topic entity is written backwards from the shared entities to it:
    `... -> {Denmark} <- location.location.contains <- ... <- Germany`."""
    parts = [names.get(seed) or UNNAMED]
    for (relation, forward), hop in zip(steps, hops, strict=True):
        parts += [_arrow(relation, forward), entity_set(hop, names, limit)]
    for other, chain in (joins or {}).items():
        back = [_arrow(relation, not forward) for relation, forward in reversed(chain)]
        parts.append(" ... ".join(back) + " " + (names.get(other) or UNNAMED))
    return " ".join(parts)


def chain_text(steps: Sequence[StepTuple], joins: dict[str, list[StepTuple]] | None = None) -> str:
    """What the scorer embeds: the relations in order, walked-backwards ones as "X of",
    and no entity names (answer names are not in the question and drown the relations;
    without names, the text of a relation sequence is the same for every question)."""
    words = [relation_words(r) if forward else f"{relation_words(r)} of" for r, forward in steps]
    for chain in (joins or {}).values():
        words.append("and " + ", ".join(relation_words(r) if not f else f"{relation_words(r)} of" for r, f in reversed(chain)))
    return ", ".join(words)


def named_depth(steps: Sequence[StepTuple], hops: Sequence[Sequence[str]], names: dict[str, str | None]) -> int:
    """Hops between named entities: a step that lands on unnamed nodes (CVTs) is not one."""
    return sum(1 for hop in hops if any(names.get(e) is not None for e in hop)) or len(steps)


def from_group(group: PathGroup, names: dict[str, str | None], phase: Phase, names_per_set: int) -> PathCandidate:
    steps = [(s.relation, s.forward) for s in group.chain]
    hops = [sorted(hop) for hop in group.hops]
    joins = {other: [(s.relation, s.forward) for s in chain] for other, chain in group.joins.items()}
    ends = hops[-1][:3] if hops else [group.seed]  # `group.ends`, sorted once
    evidence = [p for end in ends for p in group.concrete_paths(end, limit=1)]
    return PathCandidate(seed=group.seed, steps=steps, hops=hops, joins=joins, evidence=evidence,
                         text=path_text(group.seed, steps, hops, names, names_per_set, joins), phase=phase,
                         depth=named_depth(steps, hops, names), from_every_end=leaves_every_end(group))


def leaves_every_end(group: PathGroup) -> bool:
    """Whether the group's last step leaves from every entity of its hop before (whose
    entities the last hop's parents are: counting them is enough)."""
    if len(group.hops) < 2:
        return False
    before, left_from = len(group.hops[-2]), set()
    for parents in group.hops[-1].values():
        left_from |= parents
        if len(left_from) >= before:
            return True
    return False


def extend(neighbours: NeighborCache, candidates: Sequence[PathCandidate], names: dict[str, str | None], *,
           names_per_set: int, visited: set[str] | None = None) -> list[PathCandidate]:
    """PoG's node expansion: one more hop from the end entities of the given paths to
    entities not on them, as new path groups (one per candidate and relation step). An end
    in `visited` (expanded in an earlier round) is not expanded again; the ends expanded now
    are added to it. A path's joins (other topic entities that reach its ends) are walked on
    by the same step, so that they hold at the new ends: `France -> borders -> Germany`
    becomes `France -> borders -> Germany -> continent -> Europe`, never `Europe <- borders
    <- France`. Adds the names it sees to `names`."""
    visited = set() if visited is None else visited
    # A value that ends a path is a leaf (kg_store.paths.explore): not expanded.
    fresh = {c.key: [e for e in c.ends if e not in visited and not is_value_node(e)] for c in candidates}
    edges, _ = neighbours.neighbors(list(dict.fromkeys(e for ends in fresh.values() for e in ends)))
    visited.update(e for ends in fresh.values() for e in ends)
    extended: list[PathCandidate] = []
    for candidate in candidates:
        on_path = {candidate.seed, *(e for hop in candidate.hops for e in hop)}
        reached: dict[StepTuple, dict[str, str]] = {}
        leaving: dict[StepTuple, set[str]] = {}
        for end in fresh[candidate.key]:
            for edge in edges.get(end, ()):
                if edge.neighbor in on_path:
                    continue
                names.setdefault(edge.neighbor, edge.neighbor_name)
                step = (edge.relation, edge.direction == "out")
                reached.setdefault(step, {}).setdefault(edge.neighbor, end)
                leaving.setdefault(step, set()).add(end)
        for step, parents in reached.items():
            steps, hops = [*candidate.steps, step], [*candidate.hops, sorted(parents)]
            joins = {other: [*chain, step] for other, chain in candidate.joins.items()}
            evidence = [[*path, new] for path in candidate.evidence for new in sorted(parents) if parents[new] == path[-1]][:3]
            extended.append(PathCandidate(
                seed=candidate.seed, steps=steps, hops=hops, joins=joins, evidence=evidence,
                text=path_text(candidate.seed, steps, hops, names, names_per_set, joins), phase="expand",
                depth=named_depth(steps, hops, names), from_every_end=leaving[step] >= set(candidate.ends)))
    return extended


# Words that ask for the topic's siblings: "the director of X also directed which films",
# "films that share actors with X", "X co-starred with who".
_SIBLING_CUES = re.compile(r"\b(?:also|same|shares?|shared|sharing|others?|another|together|too|"
                           r"co-\w+|co(?:star|writ|wrote|direct|author|found|produc)\w*)\b", re.IGNORECASE)


def asks_for_siblings(question: str) -> bool:
    return bool(_SIBLING_CUES.search(question))


# English asks for a number or a date by these; "which year", "what date" name it.
_ASKS_FOR_A_VALUE = re.compile(r"\b(?:how (?:many|much|long|old)|when|(?:what|which) (?:year|date|number)s?)\b",
                               re.IGNORECASE)


def asks_for_a_value(question: str) -> bool:
    """Whether the question asks for a number or a date ("how many people live in ...",
    "when was X discovered", "in what year ..."): English's own cue words, not a graph's."""
    return bool(_ASKS_FOR_A_VALUE.search(question))


def sibling_mismatch(steps: Sequence[StepTuple], siblings_asked: bool) -> bool:
    """A path that ends among its start's siblings for a question that does not ask for
    siblings, or one that never walks a relation back for a question that does."""
    if siblings_asked:  # siblings are two hops away at least
        return not any(reverses(a, b) for a, b in pairwise(steps))
    return len(steps) >= 2 and reverses(steps[-2], steps[-1])  # ends among its start's siblings


# How a question names what it asks for: "what *types* are the movies ...", "what are the
# *primary languages* in ...", "what *kind* of *government* ...".
_WH_NOUN = frozenset({"what", "which"})
_WH_AUX = frozenset({"what", "which", "who"})
_WHO = frozenset({"who", "whom", "whose"})
_AUX = frozenset({"is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "has", "have",
                  "had", "should", "might", "may"})
_COPULAS = frozenset({"is", "are", "was", "were"})
_DO = frozenset({"do", "does", "did"})
_DETERMINERS = frozenset({"the", "some", "a", "an", "all", "any"})
IMPERATIVES = frozenset({"name", "list", "give", "show", "tell"})
_GENERIC_HEADS = frozenset({"name", "names", "kind", "kinds", "type", "types", "sort", "sorts", "title", "titles"})
_PHRASE_ENDS = _AUX | _WH_AUX | frozenset({
    "of", "in", "for", "from", "by", "with", "on", "at", "to", "about", "as", "that", "whose", "whom", "where",
    "when", "and", "or", "x"})


_ARTICLES = frozenset({"the", "a", "an"})
_CLAUSE_STARTS = _ARTICLES | {"that", "which", "where", "whose", "whom", "who", "x"}


def heads_a_clause(words: Sequence[str], i: int) -> bool:
    """The (lower-case) word at `i` is a noun that a relative clause follows, after an
    article: "the *country* the director of X comes from", "a *country* where ...": what
    the clause's chain reaches."""
    return 1 <= i < len(words) - 1 and words[i - 1] in _ARTICLES and words[i + 1] in _CLAUSE_STARTS


# What "who" asks for, in the word the kind prompt's example names people with
# (prompts/synth_kind.md), as a synthesised memory names the graph's kinds.
PERSON_KIND = "people"


def asked_kind_words(question: str) -> list[str]:
    """The words naming the kind of thing a (masked) question asks for: `asked_words`, or,
    for a question that starts by asking who ("who wrote ...", "whose packages ..."), people."""
    words = question_tokens(question)
    return asked_words(question) or ([PERSON_KIND] if words and words[0].lower() in _WHO else [])


def asked_words(question: str) -> list[str]:
    """The words that name what a (masked) question asks for, lower-case: the word after
    "what"/"which" ("what *types* are the movies written by X"), or the phrase after
    "what are the" up to its first preposition ("what are the *primary languages* in the
    movies ..."), and past a generic head's "of" ("what kind of *government*", "what is
    the name of the *currency*"). Empty when the question does not say ("who directed X",
    "what is X", and "what does the unit behind X measure": after "do" or another auxiliary
    than "be", the noun phrase is the verb's subject, and "what" its object). Words, not a
    parse: "what are the movies written by X" gives "movies" and "written"; what reads them
    compares words, and a participle riding along does no harm."""
    words = [w.lower() for w in question_tokens(question)]
    at = next((i for i, w in enumerate(words) if w in _WH_AUX), None)
    if at is None:  # "name the capitals of ...", "the currency of ...": the first noun phrase
        start = 1 + (words[1:2] == ["me"]) if words[:1] and words[0] in IMPERATIVES else 0
        return _after_generic_head(_noun_phrase(words[start + 1:]), words[start + 1:]) \
            if words[start:start + 1] and words[start] in _DETERMINERS else []
    if at + 1 >= len(words):
        return []
    rest = words[at + 1:]
    if rest[0] in _AUX:  # "what are the X of", never "what has written by X"
        if rest[0] not in _COPULAS:  # "what does the *unit* behind X measure": the verb's subject
            return []
        if rest[1:3] == ["x", POSSESSIVE]:  # "what are X 's neighbouring countries"
            phrase = _noun_phrase(rest[3:])  # the topic's possessive is a determiner; not "what did X 's ..."
        elif len(rest) < 2 or rest[1] not in _DETERMINERS:
            return []
        else:
            phrase = _noun_phrase(rest[2:])
    elif words[at] in _WH_NOUN and rest[0] not in _PHRASE_ENDS:
        phrase = [rest[0]]
    else:
        return []
    return _after_generic_head(phrase, rest)


def _after_generic_head(phrase: list[str], rest: Sequence[str]) -> list[str]:
    """Past a generic head's "of": "what type of *film*", "the name of the *currency*"."""
    after = rest[rest.index(phrase[-1]) + 1:] if phrase else []
    if phrase[-1:] and phrase[-1] in _GENERIC_HEADS and after[:1] == ["of"]:
        return _noun_phrase([w for w in after[1:] if w not in _DETERMINERS])
    return phrase


def generic_heads(words: Sequence[str], asked_at: Collection[int]) -> frozenset[int]:
    """Where a generic head of what is asked stands ("what *kind* of quantity"): it says what
    is asked, as the words after its "of" do, and names no link to the topic."""
    return frozenset(i for i, w in enumerate(words) if w in _GENERIC_HEADS and words[i + 1:i + 2] == ["of"]
                     and any(i + 2 <= at <= i + 3 for at in asked_at))


def _noun_phrase(words: Sequence[str], ends: Collection[str] = _PHRASE_ENDS) -> list[str]:
    """The words before the first one that ends a noun phrase (one of `ends`), three at most."""
    phrase: list[str] = []
    for word in words[:3]:
        if word in ends:
            break
        phrase.append(word)
    return phrase


_WORD = re.compile(r"[^\W\d_]+")
_FUNCTION_WORDS = frozenset({"have", "with", "from", "into", "that", "this", "than"})
_QUESTION_WORDS = frozenset({"the", "who", "what", "which", "whom", "whose", "when", "where", "why", "how", "was",
                             "were", "are", "did", "does", "for", "and", "that", "this", "with", "from", "has",
                             "had", "have", "can", "you", "some", "any", "all", "its", "their", "his", "her"})


def relation_naming_words(relation: str) -> list[str]:
    """The words of a relation that a question may name it by: its property's (a Freebase
    relation's type words, "film" in `film.film.directed_by`, name nearly every question
    about the domain), four letters or more; and for tags, what they do ("describe",
    "about": `ids.describes_its_head`). Where the property only repeats the domain or type
    (`film.director.film`, `people.ethnicity.people`), it names the tail's kind, and the
    type's words say what the relation is about ("the *director* of X")."""
    if "://" in relation:
        words = relation_words(relation)
    else:
        parts = relation.replace("/", ".").split(".")
        words = " ".join(relation_words(p) for p in parts[-2 if _repeats_its_type(parts) else -1:])
    naming = _naming(words)
    return naming + list(DESCRIBING_WORDS) if describes_its_head(relation) else naming


def _repeats_its_type(parts: Sequence[str]) -> bool:
    return len(parts) >= 3 and parts[-1] in parts[:-1] and parts[-2] != parts[-1]


def _naming(words: str) -> list[str]:
    return [w for w in _WORD.findall(words.lower()) if len(w) >= 4 and w not in _FUNCTION_WORDS]


def head_naming_words(relation: str) -> list[str]:
    """The words of a relation that name what its heads are to its tails, not the other way
    round: a Freebase type its property repeats (`film.director.film`: the director's
    films; "director" names the heads) and a whole name ending in "of" (`part_of`: "part")."""
    words = relation_words(relation)
    if words.split()[-1:] == ["of"]:
        return _naming(words)
    parts = relation.replace("/", ".").split(".")
    return _naming(relation_words(parts[-2])) if "://" not in relation and _repeats_its_type(parts) else []


def question_tokens(question: str) -> list[str]:
    """The question's words in order, as written (the topic mask stays `X`)."""
    return _WORD.findall(question)


def may_name_a_relation(word: str) -> bool:
    """A word of the question that may name a relation: three letters or more, not a
    question's own ("who", "were", "the")."""
    return len(word) >= 3 and word not in _QUESTION_WORDS


# "-es" is an inflection after a hissing sound only ("boxes", "watches"); "comes" is "come"s.
_INFLECTION = re.compile(r"(?:ing|ed|(?:(?<=[sxz])|(?<=[cs]h))es|s)$")


def word_root(word: str) -> str:
    """A (lower-case) word without its inflection: "units" and "unit", "discovered" and
    "discovers" are one word in two places; "discoverer" and "discover" are two."""
    return _INFLECTION.sub("", word)


def one_word_key(word: str) -> str:
    """What two inflections of one (lower-case) word share (`one_word`): its root, less a
    silent "e" that "-ed" drops ("required" and "requires" are "requir")."""
    return word_root(word).removesuffix("e")


def one_word(a: str, b: str) -> bool:
    """Whether two (lower-case) words are one word in two inflections (`word_root`), a
    silent "e" that "-ed" drops aside: "required" and "requires", "units" and "unit"."""
    return one_word_key(a) == one_word_key(b)


def word_names_relation(word: str, relation_words: Sequence[str]) -> bool:
    """Whether a (lower-case) question word names a relation by its letters: it holds a
    relation word's first four letters ("writer" and "screenwriter" name `written_by`,
    "released" names `release_year`), or a relation word begins with it, bare or without
    its inflection ("act" and "acted" name `starred_actors`). Synonyms ("wrote", "penned")
    are the scorer's embedding test."""
    if not may_name_a_relation(word):  # "where" holds "here" (`how_to_get_here`) but asks
        return False
    if any(w[:4] in word for w in relation_words):
        return True
    stem = word_root(word)
    return any(w.startswith(word) or (len(stem) >= 3 and w.startswith(stem)) for w in relation_words)


# "films that share actors with X", "whose actors also appear in X": the relation named
# beside these is the one the topic shares with the answers' entities.
_SHARING_BEFORE = frozenset({"share", "shares", "shared", "sharing", "same"})
_SHARING_AFTER = frozenset({"also"})
_TOPIC_PREPOSITIONS = frozenset({"by", "of"})


def topic_relation(words: Sequence[str], naming: dict[str, frozenset[int]], topic_at: int,
                   asked_at: Collection[int] = ()) -> str | None:
    """The relation a path's first step should walk: the one the question names as shared
    ("the films that share actors with X are directed by who": `starred_actors`, wherever
    it stands), else the one that modifies the topic ("X 's *country*", "X *directed*
    movies", "*directed* by X", "the *writer* of X"), else the one named nearest it; none
    where a possessive's noun names nothing ("X 's neighbours"). `words` are the question's
    lower-case words, `naming` the positions of the words that name each relation,
    `topic_at` the topic's position. None unless two relations are named and one wins alone.
    The words at `asked_at` (what is asked: "what *kind* of quantity") count as naming, but
    name the last step, never the first."""
    if sum(bool(p) for p in naming.values()) < 2:
        return None
    named_at: dict[int, set[str]] = {}
    for relation, positions in naming.items():
        for i in set(positions).difference(asked_at):
            named_at.setdefault(i, set()).add(relation)

    def only(relations: set[str]) -> str | None:
        return next(iter(relations)) if len(relations) == 1 else None

    for i, relations in sorted(named_at.items()):
        before = [w for w in words[max(0, i - 2):i] if w != "the"]
        after = words[i + 1] if i + 1 < len(words) else ""
        if (before and before[-1] in _SHARING_BEFORE) or after in _SHARING_AFTER:
            return only(relations)

    def at(i: int) -> str:
        return words[i] if 0 <= i < len(words) else ""

    # "the capitals of X 's *bordering* countries": "of" hangs the whole possessive phrase,
    # and the relation the topic's possessive names (if any) is its first link
    if at(topic_at + 1) == POSSESSIVE:
        return only(named_at[topic_at + 2]) if topic_at + 2 in named_at else None
    # "X directed movies": a relation word between the topic and a noun is the topic's
    if topic_at + 1 in named_at and may_name_a_relation(at(topic_at + 2)):
        return only(named_at[topic_at + 1])
    # "directed by X", "the writer of X": the word the topic's preposition hangs from
    preposition = before_article(words, topic_at)
    if at(preposition) in _TOPIC_PREPOSITIONS:
        head = before_article(words, preposition)
        if head in named_at:
            return only(named_at[head])
    if not named_at:
        return None
    nearest = min(named_at, key=lambda i: (abs(i - topic_at), i > topic_at))  # before the topic on a tie
    return only(named_at[nearest])


def before_article(words: Sequence[str], i: int) -> int:
    """The position of the word before the one at `i`, past one "the" ("of *the* X")."""
    return i - 1 - (i >= 1 and words[i - 1] == "the")


POSSESSIVE = "s"  # "X 's country" is tokenised X, s, country
# Possessive determiners: "whose *neighbours*", "its *capital*" make a relational noun as "X 's" does.
POSSESSIVE_DETERMINERS = frozenset({POSSESSIVE, "whose", "its", "their", "his", "her"})
_TOPIC_ATTACHMENTS = frozenset({"of", "where", "that", "which", "whose"})


def topic_phrase_words(words: Sequence[str], topic_at: int) -> frozenset[int]:
    """Where the question names what the topic's own phrase makes of it, the first link
    of a chain: "X 's *country*", "the *country* of X", "the *country* where X is", "the
    *country* X comes from" (not "the film X", where nothing follows the topic). A path
    that ends there answers with the chain's middle when the question asks for more."""
    if topic_at + 2 < len(words) and words[topic_at + 1] == POSSESSIVE:  # "the neighbours of X 's country"
        noun = topic_at + 2
    elif topic_at >= 2 and words[topic_at - 1] in _TOPIC_ATTACHMENTS and words[topic_at - 2] not in _TOPIC_ATTACHMENTS:
        noun = topic_at - 2
    elif topic_at >= 2 and words[topic_at - 2] in _DETERMINERS and topic_at + 1 < len(words):
        noun = topic_at - 1  # a relative clause without its pronoun: "the money of the country X comes from"
    else:
        return frozenset()
    return frozenset({noun}) if may_name_a_relation(words[noun]) else frozenset()


def equated_with_asked(words: Sequence[str], topic_at: int, phrase: Collection[int]) -> bool:
    """The topic's own phrase is the subject of a copula whose complement asks the question
    ("X 's *capital* is which city", "the *capital* of X was what"): the phrase names the
    answer itself, not a chain's first link (`topic_phrase_words`)."""
    end = max([topic_at, *phrase])
    return bool(phrase) and end + 2 < len(words) and words[end + 1] in _COPULAS and words[end + 2] in _WH_AUX


def owned_by_asked(words: Sequence[str], i: int, asked_at: Collection[int]) -> bool:
    """The word at `i` follows "whose" after the words saying what is asked ("name the
    *people* whose *packages* require X"): what is asked owns it, and its link to them is
    the chain's last step."""
    return i >= 2 and words[i - 1] == "whose" and i - 2 in asked_at


def owner_nouns(words: Sequence[str], topic_at: int) -> tuple[int, ...]:
    """Where the nouns stand that make the topic, or the noun phrase around it, their owner,
    nearest the topic first: "X 's *requirements* 's *authors*", "the *authors* of the
    *requirements* of X", "the *capital* of the X". The first names the path's first step,
    the next its second, and each relation such a noun names is walked from its owner
    forwards (`walks_owner_way`)."""
    found = []
    at = topic_at
    while at + 2 < len(words) and words[at + 1] == POSSESSIVE and may_name_a_relation(words[at + 2]):
        at += 2
        found.append(at)
    at = topic_at
    while True:
        of = before_article(words, at)
        if not (of >= 1 and words[of] == "of" and may_name_a_relation(words[of - 1])):
            return tuple(found)
        at = of - 1
        found.append(at)


_RELATIVE_PRONOUNS = frozenset({"that", "which", "whose", "where", "who", "whom"})
_VERB_PARTICLES = frozenset({"on", "upon", "to", "with", "in", "into", "for", "from", "at"})  # "depend *on* X"
_PREPOSITIONS = _VERB_PARTICLES | {"by", "of", "about"}
# Quantifiers and adverbs say no link of a chain: "who made *each* of the packages that use X".
_NO_LINK = frozenset({"each", "every", "both", "either", "neither", "other", "others", "another", "one", "ones",
                      "more", "most", "many", "much", "few", "several", "only", "just", "also", "even", "ever",
                      "still", "very", "such", "there", "then", "than",
                      "itself", "themselves", "himself", "herself"})  # reflexive pronouns: "is *itself* defined from"
# The nouns of compound prepositions, between "in", "by" or "on" and "of": "defined *in terms of*".
_PREPOSITION_NOUNS = frozenset({"terms", "means", "behalf", "spite"})


def link_words(words: Sequence[str], candidates_at: Iterable[int]) -> list[int]:
    """Of `candidates_at` (the question's words that may name a relation, less the topic and
    what is asked), those that say a link of its chain: its verbs and relational nouns
    ("who *wrote* the packages that X 's *dependencies* *depend* on"), not a noun that a
    relative clause or a participle follows (it names what a step reaches: "the *packages*
    that", "the *packages* X made", "the *packages* depending on X"), nor an imperative
    ("*name* the ..."), a quantifier ("*each*"), a reflexive pronoun ("is *itself* defined
    from"), a compound preposition's noun ("defined in *terms* of") or a bare subject of
    "do" ("what do *people* pay with in X")."""
    return [i for i in candidates_at if words[i] not in IMPERATIVES and words[i] not in _NO_LINK
            and not heads_a_clause(words, i) and not heads_a_participle(words, i)
            and not in_compound_preposition(words, i) and not bare_subject_of_do(words, i)
            and not (i + 1 < len(words) and words[i + 1] in _RELATIVE_PRONOUNS)]


def heads_a_participle(words: Sequence[str], i: int) -> bool:
    """The word at `i` is a noun, first or after an article, that a participle and its
    preposition follow: "the *packages* depending on X", "*units* derived from X", a
    relative clause without its pronoun (`heads_a_clause`). It names what a step reaches."""
    return (i + 2 < len(words) and (i == 0 or words[i - 1] in _ARTICLES) and words[i + 2] in _PREPOSITIONS
            and reads_as_participle(words[i + 1], ("ed", "en", "ing")))


def reads_as_participle(word: str, endings: tuple[str, ...]) -> bool:
    """The word ends as a participle does ("depending", "derived", "written"), and is no
    short word that only ends so ("red", "ten")."""
    return len(word) >= 4 and word.endswith(endings)


def bare_subject_of_do(words: Sequence[str], i: int) -> bool:
    """The word at `i` is the subject of "do", "does" or "did", without an article and not
    owning anything after it ("what do *people* pay with in X", "which money do *tourists*
    spend in X"): it says who does what the verb after it says, which is the link. A subject
    that reaches the topic is a link ("which licences do *dependencies* of X use")."""
    return (0 < i < len(words) - 1 and words[i - 1] in _DO
            and words[i + 1] not in ("of", POSSESSIVE) and may_name_a_relation(words[i + 1]))


def in_compound_preposition(words: Sequence[str], i: int) -> bool:
    """The word at `i` is the noun of a compound preposition ("in *terms* of", "by *means*
    of"): it says how, not a link."""
    return (words[i] in _PREPOSITION_NOUNS and 0 < i < len(words) - 1
            and words[i - 1] in ("in", "by", "on") and words[i + 1] == "of")


# Plurals whose singular is not the word less its ending (the possessive's "s" is a token of its own).
IRREGULAR_PLURALS = {PERSON_KIND: "person", "children": "child", "men": "man", "women": "woman", "movies": "movie",
                     "series": "series", "species": "species"}


def has_plural_ending(word: str) -> bool:
    """The word ends as a regular plural does: in "s", not "ss", "us" or "is"."""
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def reads_as_plural(word: str) -> bool:
    """The (lower-case) word looks like a plural noun ("units", "people"): by its ending,
    not a lexicon, so a verb in the third person ("requires") reads as one too, which
    only makes `says_one` say nothing."""
    return word in IRREGULAR_PLURALS or (len(word) > 3 and has_plural_ending(word) and word not in _AUX)


def says_one(words: Sequence[str], asked_at: Collection[int], topic_phrase: Collection[int]) -> bool:
    """The question names what its chain passes through in the singular, and nothing in the
    plural: an article opens a noun phrase that is neither what is asked nor the topic
    ("the symbol of the *unit* the yard is defined from", "how is the *unit* behind X
    abbreviated"), and no word outside those reads as a plural ("*units* derived from X
    measure what"). Such a phrase names one entity."""
    skip = set(asked_at) | set(topic_phrase)
    if any(reads_as_plural(w) for i, w in enumerate(words) if i not in skip):
        return False
    for i, word in enumerate(words[:-1]):
        if word in _ARTICLES:
            phrase = range(i + 1, i + 1 + len(_noun_phrase(words[i + 1:], _PHRASE_ENDS | _ARTICLES)))
            if phrase and not skip.intersection(phrase):
                return True
    return False


def after_a_determiner(words: Sequence[str], i: int) -> bool:
    """The word at `i` follows an article or a possessive ("the *unit*", "X 's *films*"): a
    noun, no verb."""
    return i >= 1 and words[i - 1] in _ARTICLES | POSSESSIVE_DETERMINERS


def closing_verb(words: Sequence[str], link_at: Collection[int]) -> int | None:
    """Where a question ends on the verb that asks its question ("how is the unit behind X
    *abbreviated*", "what does X *measure*"): its last word, where it is a link word
    (`link_words`) and no noun after an article or a possessive ("who directed X 's
    *films*") or after a participle ("the director of X *acted* films"), or the word before a
    wh-word the question ends on ("units derived from X *measure* what"); None otherwise."""
    last = len(words) - 1
    if last >= 2 and words[last] in _WH_AUX and last - 1 in link_at:
        last -= 1
    if last < 1 or last not in link_at or after_a_determiner(words, last):
        return None
    if last - 1 in link_at and reads_as_participle(words[last - 1], ("ed", "en")):
        return None
    return last


def topic_verb(words: Sequence[str], topic_at: int) -> tuple[int, bool] | None:
    """Where the word stands that the topic is the subject or agent of, and True ("the
    packages X *requires*", "what does X *require*", "*required* by X"), or the object of,
    and False ("the packages that *require* X"); None where neither is beside it. A word
    after an article is a noun, no verb: in "the *unit* the X is defined from" the topic
    begins a clause about the unit, and is no object of "unit"."""
    after = topic_at + 1
    if (after < len(words) and words[after] != POSSESSIVE and may_name_a_relation(words[after])
            and not object_of_preposition(words, topic_at)):
        return after, True
    if topic_at >= 2 and words[topic_at - 1] == "by":
        return topic_at - 2, True
    before = before_article(words, topic_at)
    if before >= 1 and words[before] in _VERB_PARTICLES:  # "the packages that depend *on* X"
        before -= 1
    if before >= 0 and may_name_a_relation(words[before]) and not (before >= 1 and words[before - 1] in _ARTICLES):
        return before, False
    return None


def takes_a_particle(words: Sequence[str], i: int) -> bool:
    """The word at `i` is a verb with its particle ("*built* on X", "what X *relies* on"),
    not a preposition ("the unit *behind* X")."""
    return i + 1 < len(words) and words[i + 1] in _VERB_PARTICLES


def joined_topic_verb(words: Sequence[str], masks: Sequence[int]) -> tuple[int, bool] | None:
    """Of a question with several topics, the verb with its particle (`takes_a_particle`) that
    one of them is the subject or object of (`topic_verb`: "which unit of the X group is
    *defined from* the X"), where exactly one is; None otherwise."""
    found = [verb for verb in (topic_verb(words, at) for at in masks)
             if verb is not None and takes_a_particle(words, verb[0]) and link_words(words, [verb[0]])]
    return found[0] if len(found) == 1 else None


def repeated_link(words: Sequence[str], link_at: Collection[int]) -> int:
    """How many times the link word said most often says its link, where one word, no
    noun after an article or a possessive, says it twice or more ("what unit *defines* the
    unit that *defines* the unit X is defined from", "units *built* on units *built* on X"):
    each is one step of the same relation. 0 where no link word repeats."""
    roots = Counter(one_word_key(words[i]) for i in link_at if not after_a_determiner(words, i))
    most = max(roots.values(), default=0)
    return most if most >= 2 else 0


def repeated_phrase(words: Sequence[str], link_at: Collection[int]) -> int:
    """How many times one link word is said in one phrase, the same form before the same
    word with more of the question after it ("units *built on* units *built on* X", "what
    unit *defines the* unit that *defines the* unit ..."): the chain's earlier entity stands
    in the same place each time, so the chain walks one relation as many times the same
    way. Not a phrase the question ends on: "units defined from the unit X is *defined
    from*" makes the topic the subject there and asks for the siblings. 0 where no phrase
    repeats."""
    phrases = Counter((words[i], words[i + 1]) for i in link_at
                      if i + 2 < len(words) and not after_a_determiner(words, i))
    most = max(phrases.values(), default=0)
    return most if most >= 2 else 0


def object_of_preposition(words: Sequence[str], topic_at: int) -> bool:
    """The topic is a preposition's object ("units built *on the* X measure what", "the
    capital *of* X borders"): the verb after it is the whole phrase's, not the topic's."""
    before = before_article(words, topic_at)
    return before >= 0 and words[before] in _PREPOSITIONS


def passive_participles(words: Sequence[str], masks: Collection[int]) -> list[int]:
    """Where a participle in the passive stands ("the packages *required* by the packages
    that X requires"): a word in "-ed" before "by", not a topic's own ("*required* by X",
    `topic_verb`). The noun before it is the verb's object, what "by" leads to its subject."""
    return [i for i in range(len(words) - 1) if words[i + 1] == "by" and words[i].endswith("ed")
            and len(words[i]) > 4 and i + 2 not in masks]


def walks_verb_way(relation: str, forward: bool, subject: bool) -> bool:
    """Whether a step walks `relation` from the subject of the verb naming it forwards, and
    from its object backwards ("X *requires* them": forwards; "the packages that *require*
    X": backwards); the other way for a relation named in the passive (`directed_by`)."""
    return forward == (subject != named_in_the_passive(relation))


def named_in_the_passive(relation: str) -> bool:
    return relation_words(relation).split()[-1:] == ["by"] or relation.endswith("by")


def named_by_a_verb(relation: str) -> bool:
    """The relation's name ends on a verb ("contains", "requires", `directed_by`): which way
    another verb reads it, the name does not say ("lie in" walks `contains` backwards).
    One named by a noun is its head's ("X 's reference unit is Y"), and a verb with its
    particle reads it from its subject ("X is *defined from* Y"). A plural noun ("parents")
    reads as a verb here: no way is read for it."""
    last = relation_words(relation).split()[-1:]
    return named_in_the_passive(relation) or (bool(last) and last[0].endswith("s") and not last[0].endswith("ss"))


def walks_owner_way(relation: str, forward: bool, noun: str) -> bool:
    """Whether a step walks `relation` from the owner of `noun`, a word naming it: forwards,
    as relations are named after what their tails are to their heads ("the *requirements*
    of X": X `requires` them; "the *director* of X": X `directed_by` them), backwards where
    the noun names the heads (`head_naming_words`: "the *parts* of X" are `part_of` X, "the
    *director* of X" is `film.director.film`'s head)."""
    return forward != word_names_relation(noun, head_naming_words(relation))


def names_one_topic(question: str, mask: str) -> bool:
    """The question, its topic written `mask`, names one topic once: a chain from it
    ("the currency of X 's country", "the elements discovered by the discoverer of X")
    has a middle that is no answer."""
    return sum(1 for t in question_tokens(question) if t == mask) == 1


def chains_through_topic_phrase(question: str, mask: str) -> bool:
    """The question names one topic and makes a noun of it first ("X 's country", "the
    country where X is"): it says itself that a chain runs through that noun."""
    tokens = question_tokens(question)
    topics = [i for i, t in enumerate(tokens) if t == mask]
    return len(topics) == 1 and bool(topic_phrase_words([t.lower() for t in tokens], topics[0]))


def reverses(step: StepTuple, following: StepTuple) -> bool:
    """Whether `following` walks `step`'s relation backwards: back to entities of the kind
    the step came from (the films that share X's director)."""
    return step[0] == following[0] and step[1] != following[1]
