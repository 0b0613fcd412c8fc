"""A path memory from the graph alone (`kgqa memory synthesize`): no question file is read.

1. **Discover** the relation sequences the graph has. Each relation can be walked from its
   heads and from its tails: those are the kinds of entity a question can start from. A
   fixed-seed sample of each kind is walked up to `max_depth` named hops (through unnamed
   CVT nodes, as PoG walks), one depth at a time; a sequence is kept when enough of the
   sampled entities that could start it do have it (its *support*), and only kept
   sequences are extended a hop further.
2. **Describe** each relation once, from its name and example entity names: the LLM
   writes the question that asks for a fact's tail given its head, a noun phrase for the
   tail ("the director of X"), and what kind of things its heads and tails are ("films",
   "people"; named first). Every reply is checked (it must name the head and not the
   tail, and a phrase's noun must not name another relation of the same heads better than
   its own: `PhraseCheck`); what fails the check falls back to plain templates from the
   relation's name. The LLM is never asked for the reverse direction: the 0.5B model
   writes "who directed Hal Ashby" when asked for the films Hal Ashby directed. Reverse
   hops are composed from the forward description instead ("which films is X the director
   of"), and where the relation's name gives its heads' type (Freebase's
   `domain.type.property`), as that type ("the cause of death of X", "which educational
   institutions ..."). No phrasing of a benchmark's is written in: what a relation is
   called comes from its name and the model.
3. **Write** several questions per sequence by nesting the descriptions ("who directed
   the films whose actor is X"), plus plain templates from the relation names, with the
   topic masked as X. Entries are the memory's own format, marked synthetic, with the kind
   the sequence ends at and no answers (there are none: nothing was asked).

The work file beside the output (`OUT.work.jsonl`) keeps the discovered sequences and
every relation's description as they are made, so an interrupted run resumes without
repeating LLM calls; the same store, depth and seed give the same memory.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from agent.embeddings import Embedder
from agent.llm.base import LLMClient
from agent.pog.candidates import IRREGULAR_PLURALS, has_plural_ending
from agent.pog.memory import MASK, MemoryEntry
from agent.pog.state import StepTuple
from kg_store import GraphStore
from kg_store.errors import InputError
from kg_store.ids import head_type_words, relation_words
from kg_store.paths import NeighborCache, PathGroup, explore
from prompts import render_chat

Hop = tuple[StepTuple, ...]  # one named hop: a relation, or two through an unnamed (CVT) node
Chain = tuple[StepTuple, ...]
SLOT = "{}"  # where a description's known entity goes
_MAX_PHRASES = 4  # natural phrases kept for the entities after each hop (they nest: at most 4 per depth)


@dataclass
class SynthesisOptions:
    max_depth: int = 3
    seed: int = 0
    per_kind: int = 12  # entities sampled per kind (a relation's heads, its tails)
    pool: int = 2_000  # entities listed per kind to sample from
    min_support: float = 0.05  # share of the starting entities that must have a sequence
    min_seeds: int = 2  # and how many at least: one entity's oddity is no pattern
    max_per_depth: int = 400  # sequences kept per depth, most supported first
    limit_per_entity: int = 100  # hub cap while walking
    values: bool = True  # literal attributes end paths as the agent's walk has them end (PoGConfig.walk_values)


@dataclass
class FoundSequence:
    steps: Chain
    hops: tuple[Hop, ...]
    support: float  # share of sampled entities able to start it that have it
    example: tuple[str, ...]  # entity names along one instance: topic, then each hop's end

    def record(self) -> dict:
        return {"record": "sequence", "steps": [list(s) for s in self.steps], "hops": [[list(s) for s in h] for h in self.hops],
                "support": self.support, "example": list(self.example)}

    @classmethod
    def of(cls, record: dict) -> FoundSequence:
        return cls(_chain(record["steps"]), tuple(_chain(h) for h in record["hops"]), record["support"],
                   tuple(record["example"]))


class Description(BaseModel):
    """How to speak of one relation (a forward hop), with SLOT for the known head."""

    hop: list[StepTuple]
    question: str  # asks for the tail: "who directed {}"
    phrase: str  # names the tail: "the director of {}"
    from_llm: list[str] = []  # which of the two the LLM wrote (the others are templates)
    object_verb: str | None = None  # "contain": the model read this verb-named relation backwards

    @property
    def noun(self) -> str:
        """The relational noun of the phrase: "director" in "the director of {}"."""
        return self.relational_noun or _words(tuple(self.hop))

    @property
    def relational_noun(self) -> str | None:
        """The noun when the phrase is "the <noun> of {}", which a possessive can say too
        ("{}'s director"); None for other phrases ("the films {} directed")."""
        return _relational_noun(self.phrase)


def _relational_noun(phrase: str) -> str | None:
    found = re.fullmatch(r"the (.+?) of \{\}", phrase)
    return found.group(1) if found else None


@dataclass
class SynthesisReport:
    sequences_by_depth: dict[int, int]
    entries: int
    relations_described: int
    kinds: int
    from_llm: Counter  # description parts the LLM wrote (the others are templates)
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int


# ---- 1. discovery --------------------------------------------------------------------

def discover(store: GraphStore, neighbours: NeighborCache, options: SynthesisOptions,
             on_step: Callable[[str, int, int], None] | None = None) -> tuple[list[FoundSequence], list[Kind]]:
    """The relation sequences the graph has, best supported first, and the kinds of
    entity sampled. `on_step(stage, done, total)` reports progress."""
    rng = random.Random(options.seed)
    counts = store.relation_counts()
    sides = [(relation, direction) for relation in sorted(counts) for direction in ("out", "in")]
    sampled: list[str] = []
    for done, (relation, direction) in enumerate(sides, 1):
        pool = store.entities_with(relation, direction, limit=options.pool)
        sampled += rng.sample(pool, min(options.per_kind, len(pool)))
        if on_step:
            on_step("sampling entities", done, len(sides))
    names = neighbours.names(list(dict.fromkeys(sampled)))
    seeds = [e for e in dict.fromkeys(sampled) if names.get(e)]  # questions are about named entities
    edges, _ = neighbours.neighbors(seeds)
    steps_of = {seed: sorted({(e.relation, e.direction == "out") for e in edges[seed]}) for seed in seeds}
    starters = Counter(step for steps in steps_of.values() for step in steps)

    kept: dict[Chain, FoundSequence] = {}
    for depth in range(1, options.max_depth + 1):
        beam = _only_extending(set(kept))
        support: Counter[Chain] = Counter()
        examples: dict[Chain, tuple[tuple[str, ...], tuple[Hop, ...]]] = {}
        for done, seed in enumerate(seeds, 1):
            walk = explore(neighbours, [seed], depth=depth, beam=beam)
            for group in walk.groups:
                hops = _named_hops(group, walk.names)
                if hops is None or len(hops) != depth:
                    continue
                chain = _chain(group.chain)
                support[chain] += 1
                if chain not in examples:
                    examples[chain] = (_example(group, walk.names), hops)
            if on_step and (done % 25 == 0 or done == len(seeds)):
                on_step(f"walking depth {depth}", done, len(seeds))
        # By share, ties by name. Hundreds of Freebase paths tie at 1.0, and two orders that
        # keep the commoner ones (by count; by share, then count), with the hub fill on these
        # walks, lost dev questions: the vote cannot tell a path from its extension when
        # their written questions match alike (docs/without-labels.md: "other paths kept").
        ranked = sorted(((n / max(starters[chain[0]], 1), chain) for chain, n in support.items() if n >= options.min_seeds),
                        key=lambda item: (-item[0], item[1]))
        chosen = [(share, chain) for share, chain in ranked if share >= options.min_support][: options.max_per_depth]
        if not chosen:
            break
        for share, chain in chosen:
            example, hops = examples[chain]
            kept[chain] = FoundSequence(chain, hops, round(share, 4), example)
    return list(kept.values()), kinds_of(steps_of, names)


@dataclass
class Kind:
    """Entities that start the same relations: one kind of thing ("films"). Each side
    of a relation (its heads: walked forward; its tails: walked backward) has one."""

    sides: list[StepTuple]
    examples: list[str]
    noun: str = "things"

    def record(self) -> dict:
        return {"record": "kind", "sides": [list(s) for s in self.sides], "examples": self.examples, "noun": self.noun}


def kinds_of(steps_of: dict[str, list[StepTuple]], names: dict[str, str | None], examples: int = 5,
             overlap: float = 0.8) -> list[Kind]:
    """Relation sides joined into kinds when nearly all the sampled entities of the rarer
    side start the other too (actors are people; one film called "Western" does not make
    the films a genre): union-find over sides that share at least `overlap` of the rarer
    side's entities, and at least two. Joining on less chains kinds together through the
    sides that every kind of entity has: at 0.2, 312 of the Freebase subset's sides
    (people, films, places, awards) were one kind, named "music" from its first examples;
    at 0.8 they are 86 kinds (people, countries, movies, teams, ...), and MetaQA's 9 stay."""
    seen = Counter(side for steps in steps_of.values() for side in steps)
    together = Counter(pair for steps in steps_of.values() for i, a in enumerate(steps) for pair in
                       ((a, b) for b in steps[i + 1:]))
    parent: dict[StepTuple, StepTuple] = {side: side for side in seen}

    def root(side: StepTuple) -> StepTuple:
        while parent[side] != side:
            parent[side] = parent[parent[side]]
            side = parent[side]
        return side

    for (a, b), shared in sorted(together.items()):
        if shared >= max(2, overlap * min(seen[a], seen[b])):
            parent[root(b)] = root(a)
    kinds: dict[StepTuple, Kind] = {}
    for side in sorted(seen):
        kinds.setdefault(root(side), Kind([], [])).sides.append(side)
    for seed, steps in steps_of.items():
        kind = kinds[root(steps[0])] if steps else None
        if kind is not None and len(kind.examples) < examples:
            kind.examples.append(names[seed] or seed)
    return [k for k in kinds.values() if k.examples]


def _only_extending(kept: set[Chain]) -> Callable[[list[PathGroup], dict], list[PathGroup]]:
    """A walk's beam that extends only the sequences kept at the depths before."""
    return lambda groups, _names: [g for g in groups if _chain(g.chain) in kept]


def _chain(steps: Iterable[Sequence]) -> Chain:
    """Steps as plain (relation, forward) tuples: from a walk's Steps or a JSON record."""
    return tuple((str(r), bool(f)) for r, f in steps)


def _named_hops(group: PathGroup, names: dict[str, str | None]) -> tuple[Hop, ...] | None:
    """The group's steps cut into named hops (a step landing on unnamed nodes joins the
    next); None when it ends on unnamed nodes (a question wants a named answer)."""
    hops: list[Hop] = []
    current: list[StepTuple] = []
    for step, hop in zip(group.chain, group.hops, strict=True):
        current.append((step.relation, step.forward))
        if any(names.get(e) for e in hop):
            hops.append(tuple(current))
            current = []
    return None if current else tuple(hops)


def _example(group: PathGroup, names: dict[str, str | None]) -> tuple[str, ...]:
    """Entity names along one concrete instance of the group, unnamed nodes left out."""
    path = group.concrete_paths(group.ends[0], limit=1)[0]
    return tuple(names[e] for e in path if names.get(e))  # type: ignore[misc]


# ---- 2. describing relations ---------------------------------------------------------

def forward(hop: Hop) -> tuple[Hop, bool]:
    """The hop as its relation is written (head to tail), and whether `hop` walks it
    backwards. A hop through a CVT that goes out and back in is taken as walked."""
    if all(not f for _, f in hop):
        return tuple((r, True) for r, _ in reversed(hop)), True
    return hop, False


def _words(hop: Hop) -> str:
    words = " ".join(_relation_words(r) for r, _ in hop).split()
    return " ".join(dict.fromkeys(words))  # "film performance film" says "film" once


def _relation_words(relation: str) -> str:
    """`relation_words`, less a type named as its domain (`location.location.contains` ->
    `contains`): such a type is the domain's generic one and says nothing, and the model,
    shown "Italy | location contains | ___", asks "what is the location of Italy"."""
    segments = relation.replace("/", ".").strip(".").split(".")
    if len(segments) >= 3 and segments[-3] == segments[-2] and "://" not in relation:
        return segments[-1].replace("_", " ")
    return relation_words(relation)


def template_description(hop: Hop) -> Description:
    """Plain templates from the relation's name: the fallback for whatever the LLM
    could not write."""
    words = _words(hop)
    return Description(hop=list(hop), question=f"what is the {words} of {SLOT}", phrase=f"the {words} of {SLOT}")


def describe(llm: LLMClient, hop: Hop, head: str, tail: str,
             names_another: Callable[[str], bool] = lambda noun: False) -> Description:
    """The LLM's description of one relation (forward), each part checked on the
    example: it must name the head, must not name the tail, be one short line, and keep
    the head the relation's subject; a phrase's noun must not name another relation
    (`names_another`, `PhraseCheck`). When the model wrote the relation as a verb with the
    head as its object ("Which country contains Italy" for `Italy | contains | ___`), the
    question is the verb's own template ("what does Italy contain")."""
    described = template_description(hop)
    fact = f"{head} | {_words(hop)} | ___"
    for part, prompt in (("question", "synth_question"), ("phrase", "synth_phrase")):
        for temperature in (0.0, 0.8):  # one retry, sampled, when the first reply fails the check
            text = _line(llm.chat(render_chat(prompt, fact=fact), temperature=temperature, max_tokens=32).text)
            slotted = _slotted(text, head, tail)
            if slotted and _object_of_relation(slotted, hop):
                if part == "question" and (verb := _base_verb(hop)):
                    # no retry, and no phrase asked: the model reads this relation backwards
                    described.question, described.phrase = f"what does {SLOT} {verb}", f"what {SLOT} {verb}s"
                    described.object_verb = verb
                    return described
                slotted = None
            if slotted and part == "phrase" and (noun := _relational_noun(slotted.lower())) and names_another(noun):
                slotted = None
            if slotted and (part == "question" or slotted.lower().startswith("the ")):
                setattr(described, part, slotted.rstrip("?.").strip())
                described.from_llm.append(part)
                break
    return described


class PhraseCheck:
    """Whether a phrase's noun names another relation than the one it describes: the 0.5B
    model echoes its prompt's examples ("the country of {}" for `discovered_by`, whose
    tails are people), and every question written through such a phrase asks for
    something else. The noun is compared (word embeddings) with each relation's words and
    its tails' kind noun, among the relations whose heads are of the same kind (those a
    question about such a head can mean); it names another when another relation matches
    it better than its own. Two relations with the same kind of tails match alike, and
    neither loses its phrase."""

    def __init__(self, embedder: Embedder, relations: Iterable[Hop], kinds: Sequence[Kind]) -> None:
        kind_of = {side: index for index, kind in enumerate(kinds) for side in kind.sides}
        self._embedder = embedder
        self._names: dict[Hop, list[str]] = {}
        self._head_kind: dict[Hop, int | None] = {}
        for hop in relations:
            tail = kinds[kind_of[tail_side]].noun if (tail_side := (hop[-1][0], not hop[-1][1])) in kind_of else None
            self._names[hop] = [_words(hop)] + ([tail] if tail and tail != "things" else [])
            self._head_kind[hop] = kind_of.get(hop[0])

    def names_another(self, hop: Hop, noun: str) -> bool:
        siblings = [h for h, kind in self._head_kind.items() if h != hop and kind == self._head_kind.get(hop)]
        if hop not in self._names or not siblings:
            return False
        texts = list(dict.fromkeys([noun, *self._names[hop], *(n for h in siblings for n in self._names[h])]))
        vectors = self._embedder.encode(texts)
        alike = dict(zip(texts, (vectors @ vectors[0]).tolist(), strict=True))
        own = max(alike[n] for n in self._names[hop])
        return any(alike[n] > own for h in siblings for n in self._names[h])


def _object_of_relation(text: str, hop: Hop) -> bool:
    """Whether `text` writes the known head right after the relation's last word, as the
    object of its verb ("contains {}", "directed by {}"): in the fact the head is the
    relation's subject, so such a text asks for the head from the tail, the reverse hop.
    The 0.5B model does this on the Freebase subset for `contains` ("Which country
    contains Italy"), `written_by` ("the film written by Big"), `organizations_founded`
    ("Who founded X", of a founder) and `symptom_of`, among others."""
    last = _relation_words(hop[-1][0]).split()[-1]
    return re.search(rf"(?i)\b{re.escape(last)}\s+{re.escape(SLOT)}", text) is not None


def _base_verb(hop: Hop) -> str | None:
    """"partially contain" for `partially_contains`: a relation named by a verb's -s form,
    without its -s; None for other names."""
    *before, last = hop[-1][0].replace("/", ".").split(".")[-1].split("_")
    return " ".join([*before, last[:-1]]) if re.fullmatch(r"[a-z]+[^s]s", last) else None


def name_kind(llm: LLMClient, kind: Kind, facts: Sequence[str]) -> str:
    """The LLM's plural noun for a kind ("films"), from its example names and a few facts
    that show what they do; "things" when the reply is not one short noun."""
    reply = _line(llm.chat(render_chat("synth_kind", facts="; ".join(facts), items="; ".join(kind.examples)),
                           temperature=0.0, max_tokens=8).text).lower().strip(" .")
    if re.fullmatch(r"[a-z][a-z -]{1,30}", reply) and not any(reply == e.lower() for e in kind.examples):
        return reply
    return "things"


def _line(text: str) -> str:
    return next((line.strip().strip('"') for line in text.splitlines() if line.strip()), "")


def _slotted(text: str, known: str, other: str) -> str | None:
    """`text` with `known` replaced by SLOT, when it names `known` once, never `other`,
    and is one short phrase; else None."""
    if not text or len(text) > 120 or "{" in text or "___" in text:
        return None
    lowered = text.lower()
    if lowered.count(known.lower()) != 1 or (other.lower() in lowered and other.lower() not in known.lower()):
        return None
    start = lowered.index(known.lower())
    return text[:start] + SLOT + text[start + len(known):]


# ---- 3. questions --------------------------------------------------------------------

def questions_for(sequence: FoundSequence, descriptions: dict[Hop, Description], nouns: dict[StepTuple, str]) -> list[str]:
    """`_questions_from` the topic as X and as "the <kind> X" ("who starred in the movie X")."""
    first_step = sequence.steps[0]
    kind = _singular(nouns.get(first_step, "things"))
    typed = [] if kind == "thing" else _questions_from(f"the {kind} {MASK}", sequence, descriptions, nouns)
    return list(dict.fromkeys([*_questions_from(MASK, sequence, descriptions, nouns), *typed]))


def _questions_from(topic: str, sequence: FoundSequence, descriptions: dict[Hop, Description],
                    nouns: dict[StepTuple, str]) -> list[str]:
    """Several questions asking for the end of `sequence` from its start, written X: the
    hops nested into noun phrases, in two styles (the LLM's own words where it wrote
    them: "the movies X starred in", "the movies directed by X"; and "the movies whose
    actor is X"), the last hop asked as a question about the phrase before it, and a
    plain relation-name template. A relation walked there and back is also asked as
    sharing ("the movies that share directors with X", "the director of X also directed
    which movies"). `nouns`: what the entities that start each relation side are."""
    natural: list[str] = [topic]  # the natural phrases for the entities reached so far
    formal = plain = topic
    possessive: str | None = topic  # None once a hop cannot be said as one
    asked: list[str] = []
    previous: tuple[Hop, bool] | None = None
    before: list[str] = [topic]  # the phrases before the previous hop: where a "same relation" pair starts
    for hop in sequence.hops:
        shared_from, before = before[0], natural
        written, backwards = forward(hop)
        described = descriptions.get(written) or template_description(written)
        words, noun = _words(written), _singular(described.noun)
        head_type = head_type_words(written[0][0])  # "the cause of death of X", where the name says what it is
        head_kind = _plural(head_type) if head_type else nouns.get((written[0][0], True), "things")
        tail_kind = nouns.get((written[-1][0], False), "things")
        verb = _subject_verb(described.question)
        object_verb = described.object_verb  # "what does X contain", "which locations contain X"
        there_and_back = previous is not None and previous[0] == written and previous[1] != backwards
        if backwards:  # the answer is the relation's head: "the movies X starred in"
            participle = _participle(words, verb)
            asked = [f"which {head_kind} have {formal} as their {noun}", f"which {head_kind} {words} {formal}"]
            phrases = []
            for phrase in natural:
                if head_type:
                    asked += [f"what is the {head_type} of {phrase}"]
                    phrases += [f"the {head_type} of {phrase}"]
                asked += [f"which {head_kind} did {phrase} {verb}"] if verb else []
                asked += [f"which {head_kind} is {phrase} the {noun} of"]
                phrases += [f"the {head_kind} {phrase} {verb}"] if verb else []
                phrases += [f"the {head_kind} {participle} {phrase}"] if participle else []
                if object_verb:  # "which locations contain X", "the locations that contain X"
                    asked += [f"which {head_kind} {object_verb} {phrase}", f"what {object_verb}s {phrase}"]
                    phrases += [f"the {head_kind} that {object_verb} {phrase}"]
            if there_and_back and verb:  # "what other movies did the director of X direct"
                asked += [f"what other {head_kind} did {natural[0]} {verb}"]
            possessive = None
            natural = phrases or [f"the {head_kind} whose {noun} is {natural[0]}"]
            formal = f"the {head_kind} whose {noun} is {formal}"
            plain = f"what has {words} {plain}"
            if there_and_back:  # "the movies that share actors with X"
                natural.append(f"the {head_kind} that share {noun}s with {shared_from}")
                asked += [f"which {head_kind} share the {noun} with {shared_from}",
                          f"which {head_kind} have the same {noun} as {shared_from}"]
        else:
            who = "who" if described.question.lower().startswith("who") else "what"
            asked = [described.question.replace(SLOT, formal)]
            # "X 's country 's capital": relational nouns chain as possessives
            possessive = f"{possessive} 's {described.relational_noun}" if possessive and described.relational_noun else None
            asked += [f"{who} is {possessive}"] if possessive else []
            for phrase in natural:
                asked += [described.question.replace(SLOT, phrase), f"{who} is {described.phrase.replace(SLOT, phrase)}"]
            natural = [described.phrase.replace(SLOT, phrase) for phrase in natural] + (
                [f"the {tail_kind} {phrase} {object_verb}s" for phrase in natural] if object_verb else [])
            formal = described.phrase.replace(SLOT, formal)
            plain = f"the {words} of {plain}"
            if there_and_back:  # "the people who starred in movies with X", "the co-writers of X"
                natural.append(f"the {tail_kind} who {verb or 'share'} {head_kind} with {shared_from}")
                asked += [f"who {verb or 'shares'} the same {head_kind} as {shared_from}",
                          f"who are the co-{noun}s of {shared_from}"]
                asked += [f"who co-{verb} {head_kind} with {shared_from}"] if verb else []
        natural = list(dict.fromkeys(natural))[:_MAX_PHRASES]
        previous = (written, backwards)
    return list(dict.fromkeys([*asked, *(f"what are {phrase}" for phrase in natural), f"what are {formal}", plain]))


def _participle(words: str, verb: str | None) -> str | None:
    """How a reverse hop reads after its entities ("the movies <directed by> X"): the
    relation's own name when it says it ("directed by"), else a regular verb's "-ed" form
    ("starred in" -> "starred by")."""
    if words.endswith(" by"):
        return words
    if verb and verb.split()[0].endswith("ed"):
        return f"{verb.split()[0]} by"
    return None


def _subject_verb(question: str) -> str | None:
    """The verb phrase of a question that asks for its subject ("starred in" from "Who
    starred in {}"): the reverse question reuses it ("which movies did X starred in"; the
    tense stays wrong, which sentence embeddings forgive)."""
    found = re.fullmatch(r"(?i)(?:who|what)\s+((?:\w+\s+){0,2}\w+)\s+\{\}", question.strip(" ?"))
    if not found or found.group(1).split()[0].lower() in {"is", "are", "was", "were", "does", "do", "did", "has"}:
        return None
    return found.group(1).lower()


_IRREGULAR_SINGULARS = {single: plural for plural, single in IRREGULAR_PLURALS.items()}


def _plural(noun: str) -> str:
    """"educational institution" -> "educational institutions", "cause of death" -> "causes
    of death", "country" -> "countries"."""
    if " of " in noun:
        head, rest = noun.split(" of ", 1)
        return f"{_plural(head)} of {rest}"
    *before, last = noun.split(" ")
    if last in _IRREGULAR_SINGULARS:
        last = _IRREGULAR_SINGULARS[last]
    elif last.endswith("y") and last[-2:-1] not in tuple("aeiou"):
        last = last[:-1] + "ies"
    elif not last.endswith("s"):
        last += "s"
    return " ".join([*before, last])


def _singular(noun: str) -> str:
    """"actors" -> "actor", "countries" -> "country": the reverse phrases and the typed
    topic speak of one ("whose actor is X", "the country X")."""
    *before, last = noun.split(" ")
    if last in IRREGULAR_PLURALS:
        last = IRREGULAR_PLURALS[last]
    elif last.endswith("ies"):
        last = last[:-3] + "y"
    elif has_plural_ending(last):
        last = last[:-1]
    return " ".join([*before, last])


# ---- the whole run -------------------------------------------------------------------

def synthesize(store: GraphStore, llm: LLMClient, embedder: Embedder, out_path: Path, options: SynthesisOptions, *,
               on_step: Callable[[str, int, int], None] | None = None) -> SynthesisReport:
    """Discover, name the kinds of entity, describe, write: the memory at `out_path` (JSON
    Lines, replaced when done), resuming from `OUT.work.jsonl` when an earlier run was
    interrupted. `embedder` checks the model's descriptions (`PhraseCheck`)."""
    work_path = out_path.with_name(out_path.name + ".work.jsonl")
    settings = {"record": "settings", "store": store.display_url, "max_depth": options.max_depth,
                "seed": options.seed, "per_kind": options.per_kind, "min_support": options.min_support,
                "max_per_depth": options.max_per_depth}
    records = _read_work(work_path)
    if records and records[0] != settings:
        raise InputError(f"{work_path} holds an interrupted run with other settings ({records[0]}); "
                         "remove it or write to another --out")
    by_type: dict[str, list[dict]] = {}
    for record in records:
        by_type.setdefault(record["record"], []).append(record)
    sequences = [FoundSequence.of(r) for r in by_type.get("sequence", [])]
    kinds = [Kind([_chain([s])[0] for s in r["sides"]], r["examples"], r["noun"]) for r in by_type.get("kind", [])]
    descriptions = {_chain(r["hop"]): Description.model_validate(r) for r in by_type.get("description", [])}
    named = {r["index"]: r["noun"] for r in by_type.get("noun", [])}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with open(work_path, "a", encoding="utf-8") as work, llm.track() as usage:
        def keep(record: dict) -> None:
            work.write(json.dumps(record, ensure_ascii=False) + "\n")
            work.flush()

        if not records:
            keep(settings)
        if "discovered" not in by_type:
            neighbours = NeighborCache(store, limit_per_entity=options.limit_per_entity, values=options.values)
            sequences, kinds = discover(store, neighbours, options, on_step)
            for item in [*sequences, *kinds]:
                keep(item.record())
            keep({"record": "discovered"})
        relations = _relations_with_examples(sequences)
        for index, kind in enumerate(kinds):  # first: a description is checked against the kinds' nouns
            if index not in named:
                named[index] = name_kind(llm, kind, _facts_of(kind, relations))
                keep({"record": "noun", "index": index, "noun": named[index]})
            kind.noun = named[index]
            if on_step:
                on_step("naming kinds of entity", index + 1, len(kinds))
        check = PhraseCheck(embedder, relations, kinds)
        for done, (hop, (head, tail)) in enumerate(relations.items(), 1):
            if hop not in descriptions:
                descriptions[hop] = describe(llm, hop, head, tail, lambda noun, hop=hop: check.names_another(hop, noun))
                keep({"record": "description", **descriptions[hop].model_dump()})
            if on_step:
                on_step("describing relations", done, len(relations))
        nouns = {side: kind.noun for kind in kinds for side in kind.sides}
        entries = []
        for sequence in sequences:
            relation, walked_forward = sequence.steps[-1]
            ends = nouns.get((relation, not walked_forward))  # what its ends are: the far side of its last step
            for text in questions_for(sequence, descriptions, nouns):
                entries.append(MemoryEntry(question_id=f"synthetic:{len(entries) + 1}", question=text,
                                           paths=[list(sequence.steps)], depth=len(sequence.hops),
                                           synthetic=True, support=sequence.support,
                                           ends=None if ends == "things" else ends))
        temporary = out_path.with_name(out_path.name + ".tmp")
        with open(temporary, "w", encoding="utf-8") as out:
            out.writelines(entry.model_dump_json() + "\n" for entry in entries)
        temporary.replace(out_path)
    return SynthesisReport(
        sequences_by_depth=dict(sorted(Counter(len(s.hops) for s in sequences).items())), entries=len(entries),
        relations_described=len(relations), kinds=len(kinds),
        from_llm=Counter(part for d in descriptions.values() for part in d.from_llm),
        llm_calls=usage.calls, prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens)


def _facts_of(kind: Kind, relations: dict[Hop, tuple[str, str]], limit: int = 3) -> list[str]:
    """Example facts in which the kind's entities take part, for naming it."""
    facts = []
    for hop, (head, tail) in relations.items():
        if (hop[0][0], True) in kind.sides or (hop[-1][0], False) in kind.sides:
            facts.append(f"{head} | {_words(hop)} | {tail}")
        if len(facts) == limit:
            break
    return facts


def _relations_with_examples(sequences: Sequence[FoundSequence]) -> dict[Hop, tuple[str, str]]:
    """Every relation the sequences use (as written, head to tail), with the head and tail
    names of its first instance among the sequences'."""
    found: dict[Hop, tuple[str, str]] = {}
    for sequence in sequences:
        if len(sequence.example) != len(sequence.hops) + 1:  # an instance through an unnamed entity
            continue
        for index, hop in enumerate(sequence.hops):
            written, backwards = forward(hop)
            near, far = sequence.example[index], sequence.example[index + 1]
            found.setdefault(written, (far, near) if backwards else (near, far))
    return found


def _read_work(path: Path) -> list[dict]:
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            break  # a torn last line: the run was killed mid-write
    return records
