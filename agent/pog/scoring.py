"""Fuzzy selection's score of a path, from embeddings and graph structure, not the LLM.

    score = w.question  * cos(question, relations of the path)
          + w.indicator * cos(LLM indicator, relations of the path)
          + w.memory    * path-memory vote for the path's relation sequence (w.synthetic_memory
                          for a synthesised memory, whose vote is void for a path that any
                          term below counts against, w.unnamed and w.missing aside, for
                          one that w.missing counts against where a longer path explains
                          the question whole, and for one of another length than the link
                          words count, below)
          + w.depth     * [path depth == the depth a path memory predicts]
          - w.length    * (path depth - 1)
          - w.unnamed   * steps whose relation the question does not name (by its letters, or a
                          synonym: word embeddings at least w.synonym alike; or by the kind of
                          what the step reaches, `kinds_reached`; or, the last step, by asking
                          for the kind of thing it reaches, as a synthesised memory names the
                          graph's kinds: `asked_kind_steps`, or by the verb a question that says
                          nothing of what it asks ends on, where its relation is the last steps'
                          most alike that verb: `closing_verb_at`, `nearest_relation`), or walk it the
                          same way once more than it has mentions (`named_too_few_times`), less those
                          inside the path that a word of the question naming no relation may
                          stand for
          - w.middle    * [a one-hop path whose relation is named only in the topic's own phrase
                           ("X 's country") when the question asks for something else]
          - w.missing   * words of the question that name a relation (among the candidates') where the
                          path walks none of the relations they name; for the words saying what
                          is asked, where it walks it backwards but not last (`asked_elsewhere`);
                          and words naming a relation the graph chains beyond the path's walks
                          of it (`walked_too_few_times`)
          - w.skipped   * relational nouns of the question that name no relation ("the *neighbours*
                          of") which another candidate has an unnamed step for, walking this
                          path's steps otherwise: this path skips those links of the chain
          - w.first     * [the path's first step is not the relation the question names beside its
                           topic, or as what the topic shares (`paths.topic_relation`); or the
                           topic's own phrase names no relation ("X 's *neighbours*") and the
                           first step is one the question names elsewhere]
          - w.way       * steps walking a relation against the way the word naming it reads it,
                          an owner noun, the verb beside the topic or a passive participle: "the
                          *requirements* of X" are what X requires (`against_word_order`)
          - w.kind      * [the question asks for what the last relation is named after, and the path
                           walks it backwards, to its heads]
          - w.loop      * [the path ends where it has been: at its start or an earlier hop's entities]
          - w.back      * [the path ends among the topic's siblings and the question does
                           not ask for siblings, or the question asks and it never walks back;
                           it asks by a cue word, or by naming one relation in two places]
          - w.value     * [the question asks for a number or a date and none of the path's
                           ends is one (`asks_for_a_value`)]
          - w.number    * [the question names the chain's middle in the singular only, and the
                           path passes through many where another way along its relations
                           passes through one (`many_where_one`)]
          + w.fit       * cos(the words saying what the question asks for, the names at the
                          path's end): what kind of thing the path reaches, told by the graph's
                          own names ("which *elements* ...": Argon and Helium, not Scotland)

Where the question's words name none of the relations the candidates walk, the words saying
what is asked aside, its link words (`candidates.link_words`: "who *wrote* the packages that
*depend* on X") stand in (`links_count_steps`): each step more or fewer than there are link
words is `unnamed`, and so is a last step the asked words do not name where they name
others; the link word nearest the topic reads the first step's way (`way`).

Topic entity names are masked out of the question and indicator, and paths are embedded
without entity names (`paths.chain_text`), so the similarity is about relations only and
the vectors of relation sequences are shared (and cached) across questions.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from itertools import combinations, pairwise

import numpy as np

from agent.embeddings import Embedder
from agent.pog.candidates import (
    IMPERATIVES,
    POSSESSIVE_DETERMINERS,
    asked_words,
    asks_for_a_value,
    asks_for_siblings,
    chain_text,
    closing_verb,
    equated_with_asked,
    generic_heads,
    heads_a_clause,
    in_compound_preposition,
    joined_topic_verb,
    leaves_every_end,
    link_words,
    may_name_a_relation,
    named_by_a_verb,
    named_depth,
    one_word,
    owned_by_asked,
    owner_nouns,
    passive_participles,
    question_tokens,
    relation_naming_words,
    repeated_link,
    repeated_phrase,
    reverses,
    says_one,
    sibling_mismatch,
    takes_a_particle,
    topic_phrase_words,
    topic_relation,
    topic_verb,
    walks_owner_way,
    walks_verb_way,
    word_names_relation,
)
from agent.pog.config import ScoreWeights
from agent.pog.constraints import as_value
from agent.pog.memory import MASK, mask_question, masked_question
from agent.pog.state import PathCandidate, PoGState, PriorChain, StepTuple
from kg_store.paths import PathGroup

ChainKey = tuple[StepTuple, ...]
# How many entities at a hop read as many against a singular noun phrase (`many_where_one`).
MANY_FOR_ONE = 3


def chain_key(steps: Sequence[Sequence]) -> ChainKey:
    return tuple((str(r), bool(f)) for r, f in steps)


class PathScorer:
    def __init__(self, embedder: Embedder, weights: ScoreWeights, question: str, indicator: str | None,
                 prior: Sequence[PriorChain], predicted_depth: int | None, *, synthetic_prior: bool = False,
                 asked_kind_steps: Iterable[Sequence] = ()) -> None:
        self.embedder, self.weights, self.predicted_depth = embedder, weights, predicted_depth
        # The steps that reach the kind of thing the question asks for, by the graph's kinds
        # ("name the *people* whose ...": `author`): as a path's last step, the question names it.
        self.asked_kind_steps = frozenset(chain_key(asked_kind_steps))
        # A synthesised memory votes by how alike the question is to questions written
        # for each chain: "name the capitals of X 's neighbours" is nearest "what is the
        # capital of X". Its vote cannot outweigh what the question's words say against a path.
        self.synthetic_prior = synthetic_prior
        texts = [question] + ([indicator] if indicator else [])
        vectors = embedder.encode(texts)
        self.question_vector = vectors[0]
        self.indicator_vector = vectors[1] if indicator else None
        self.prior = {chain_key(p.steps): p.weight for p in prior}
        self.asks_for_siblings = asks_for_siblings(question)
        self.asks_for_value = asks_for_a_value(question)
        tokens = question_tokens(question)
        self.words = [t.lower() for t in tokens]
        masks = [i for i, t in enumerate(tokens) if t == MASK]
        self.topic_at = masks[0] if len(masks) == 1 else None  # one topic mention: the first-step cue
        self._masks = frozenset(masks)
        # What the topic's own phrase makes of it ("X 's country"), and where the question
        # says what it asks for beyond that ("what *currency* ... X 's country").
        self.topic_phrase = topic_phrase_words(self.words, self.topic_at) if self.topic_at is not None else frozenset()
        self.phrase_is_asked = self.topic_at is not None and equated_with_asked(self.words, self.topic_at,
                                                                                 self.topic_phrase)
        self.owner_nouns = owner_nouns(self.words, self.topic_at) if self.topic_at is not None else ()
        self.topic_verb = topic_verb(self.words, self.topic_at) if self.topic_at is not None else None
        # Several topics: the one with a verb beside it says which way its side walks first.
        self.joined_verb = joined_topic_verb(self.words, masks) if len(masks) > 1 else None
        asked = set(asked_words(question))
        self.asked_at = frozenset(i for i, w in enumerate(self.words) if w in asked) - self.topic_phrase
        self._naming: dict[str, frozenset[int]] = {}
        self._may_name = [i for i, w in enumerate(self.words) if may_name_a_relation(w)]
        # The words saying the links of a chain from the one topic (`link_words`), nearest it first.
        self.link_at = sorted(link_words(self.words, (i for i in self._may_name if i not in self._masks
                                                       and i not in self.asked_at)),
                              key=lambda i: (abs(i - self.topic_at), i)) if self.topic_at is not None else []
        self._participles = passive_participles(self.words, self._masks)
        # A question that says nothing of what it asks for ends on the verb that asks it.
        self.closing_verb_at = None if self.asked_at else closing_verb(self.words, self.link_at)
        self.says_one = says_one(self.words, self.asked_at, self.topic_phrase)
        self._word_vectors: np.ndarray | None = None  # of the words at `_may_name`, encoded on first need
        # What the question asks for, as one text ("elements"); empty where it does not say
        # ("who ..."). Encoded where `rank` first needs it: the exploration's beam never does.
        self._asked_text = " ".join(self.words[i] for i in sorted(self.asked_at)) if weights.fit else ""

    def naming_positions(self, relation: str) -> frozenset[int]:
        """Where the question names the relation: the positions of its words that name it by
        their letters (`paths.word_names_relation`) or as a synonym, a word whose embedding
        is close to one of the relation's words ("wrote" and "penned" for `written_by`)."""
        found = self._naming.get(relation)
        if found is None:
            words = relation_naming_words(relation)
            found = self._naming[relation] = frozenset(
                i for i, w in enumerate(self.words) if word_names_relation(w, words)) | self._synonyms_of(words)
        return found

    def named(self, relation: str) -> bool:
        return bool(self.naming_positions(relation))

    def first_relation(self, relations: Iterable[str]) -> str | None:
        """Of `relations`, the one a path should walk first: the one the question names
        beside its topic or as what the topic shares (`candidates.topic_relation`); None
        unless the topic is mentioned once and one relation wins alone. Not by the words
        saying what is asked, nor their generic head ("what *kind* of quantity"): they name
        the last step."""
        if self.topic_at is None:
            return None
        named = sorted(r for r in set(relations) if self.named(r))
        return topic_relation(self.words, {r: self.naming_positions(r) for r in named}, self.topic_at,
                              self.asked_at | generic_heads(self.words, self.asked_at))

    def spare_words(self, relations: Iterable[str]) -> list[int]:
        """Where the question has a relational noun ("the *neighbours* of ...", "X 's
        *neighbours*", "the *neighbouring* countries of") that names none of `relations`
        (the graph says `borders`): what a step the question does not name by its letters
        may stand for. Other words that name nothing ("films", "mostly") are more often the
        answer's kind or no relation at all; a cue for siblings before such a noun ("the
        *same* writer of") asks to share, and stands for no step."""
        naming = frozenset().union(*(self.naming_positions(r) for r in set(relations)))
        return [i for i in self._may_name if i not in naming and i not in self._masks and i not in self.asked_at
                and self.words[i] not in IMPERATIVES and self._relational(i)]

    def _relational(self, i: int) -> bool:
        """The word at `i` is a relational noun by its place: "the *neighbours* of", "X 's
        *country*", "whose *neighbours*", or just before such a noun ("the *neighbouring*
        countries of"), unless it asks to share ("the *same* writer of") or is a compound
        preposition's noun ("in *terms* of")."""
        words = self.words
        if in_compound_preposition(words, i):
            return False
        before_noun = i + 2 < len(words) and words[i + 2] == "of" and may_name_a_relation(words[i + 1])
        return ((i + 1 < len(words) and words[i + 1] == "of") or (i >= 1 and words[i - 1] in POSSESSIVE_DETERMINERS)
                or (before_noun and not asks_for_siblings(words[i])))

    def kinds_reached(self, chains: Sequence[ChainKey], from_every_end: Sequence[bool]) -> list[list[frozenset[int]]]:
        """For each chain, for each step: where a relational noun of the question, or a noun
        that a relative clause follows ("the *country* whose citizen directed X";
        `heads_a_clause`), not the asked word nor one naming a relation the chain walks,
        names the kind of what the step reaches, by naming another relation that reaches
        every one of those entities, where the graph has no step there that the word names
        itself. The candidates tell: a chain one step longer that walks such a relation
        backwards from all of them (`from_every_end`), and the steps walked from the same
        place. "the official language
        of X 's director 's *country*": no relation from the director is named "country",
        and `nationality` reaches what `film.film.country` reaches. Not where a step forward
        that the word names leaves from there, reaching what its relation is named after:
        the director of "the films of the *screenwriter* of X" has written films, and the
        screenwriter is `written_by`'s. A step backwards reaches the relation's heads, not
        what it is named after: `country` walked back from X reaches X's cities, and "the
        *countries* that border X" are the neighbours. Not where the relation reaches only
        some of the ends: a country's cities are not all capitals."""
        relational = frozenset(i for i in self._may_name if i not in self.asked_at
                               and (self._relational(i) or heads_a_clause(self.words, i)))
        if not relational:  # most questions: nothing to read, and a Freebase walk has thousands of chains
            return [[frozenset()] * len(steps) for steps in chains]
        arriving: dict[ChainKey, set[str]] = {}
        leaving: dict[ChainKey, set[str]] = {}
        for steps, every in zip(chains, from_every_end, strict=True):
            if steps[-1][1]:  # a step forward reaches what its relation is named after
                leaving.setdefault(steps[:-1], set()).add(steps[-1][0])
            if every and len(steps) >= 2 and not steps[-1][1]:
                arriving.setdefault(steps[:-1], set()).add(steps[-1][0])
        named_there: dict[ChainKey, frozenset[int]] = {}  # per place (a chain's prefix): the words naming its kind

        def kind_words(place: ChainKey) -> frozenset[int]:
            found = named_there.get(place)
            if found is None:
                reached_by = frozenset().union(*(self.naming_positions(r) for r in arriving.get(place, ())))
                leaving_by = frozenset().union(*(self.naming_positions(r) for r in leaving.get(place[:-1], ())))
                found = named_there[place] = (relational & reached_by) - leaving_by
            return found

        def kinds_of(steps: ChainKey) -> list[frozenset[int]]:
            walked = frozenset().union(*(self.naming_positions(r) for r, _ in steps))  # one word, one step
            return [kind_words(steps[:i + 1]) - walked for i in range(len(steps))]

        return [kinds_of(steps) for steps in chains]

    def unexplained_steps(self, unnamed: Sequence[bool], stand_ins: Sequence[int], spare: int) -> int:
        """Steps whose relation the question does not name, less those of its `stand_ins`
        (`PathScorer.stand_ins`) that `spare` words explain, one word a step. One between
        two named steps is explained by a spare word of the question: "the capitals of the
        neighbours of X 's country" walks `borders` between `country` and `capital`. So is
        the first step, when the topic's own phrase is such a word ("the capitals of X 's
        *neighbours*"), since that phrase is the chain's first link. So is the last, when
        what is asked owns such a word ("name the *people* whose *packages* require X":
        `owned_by_asked`), since that word's link to them is the chain's last, unless the
        graph's kinds name which last step reaches what is asked. The last step is not
        excused by a spare word otherwise, nor the first: the embeddings favour paths that
        run on past the answer, or wander before reaching what the question names. (The
        last step is named, not excused, by the verb a question ends on where it says
        nothing else of what it asks: `closing_verb_at`.)
        (`score` gives no spare words where a candidate as long names all its steps, but the
        one what is asked owns: "the films of the screenwriter of X" is `written_by` there
        and back, not `written_by` then `directed_by`.)"""
        return sum(unnamed) - min(len(stand_ins), spare)

    @staticmethod
    def stand_ins(unnamed: Sequence[bool], topic_spare: bool, owned_spare: bool = False) -> list[int]:
        """Where the path has unnamed steps that a spare word may stand for
        (`unexplained_steps`): one between two named steps, the first where the topic's
        phrase is spare, and the last where what is asked owns a spare word."""
        first = [0] if topic_spare and unnamed[0] and len(unnamed) > 1 else []
        last = [len(unnamed) - 1] if owned_spare and unnamed[-1] and len(unnamed) > 1 else []
        return first + [i for i in range(1, len(unnamed) - 1)
                        if unnamed[i] and not unnamed[i - 1] and not unnamed[i + 1]] + last

    @staticmethod
    def skipped_links(items: Sequence[tuple[ChainKey, list[int]]]) -> list[int]:
        """For each (steps, where spare words stand in), how many links of its chain another
        candidate walks that it skips: the other walks the same steps with a step more for
        each relational noun ("the *neighbours* of the country with capital X": capital,
        borders, currency against capital, currency)."""
        most: dict[ChainKey, int] = {}
        cores = []
        for steps, at in items:
            core = tuple(step for i, step in enumerate(steps) if i not in at)
            cores.append(core)
            most[core] = max(most.get(core, 0), len(at))
        return [most[core] - len(at) for core, (_, at) in zip(cores, items, strict=True)]

    def against_word_order(self, steps: ChainKey, chained: set[str], symmetric: Collection[str] = (),
                           by_links: bool = False) -> int:
        """Steps that walk a relation against the way the question's word order reads it.
        The relation an owner noun names (`candidates.owner_nouns`: the first noun from the
        topic for the first step, the second for the second) is walked from its owner
        (`candidates.walks_owner_way`): "the authors of the *requirements* of the
        *requirements* of X" are the authors of what what X requires requires, not of what
        requires it. A step no noun stands for is free: "the films of the *screenwriter* of X"
        walks `written_by` forwards to the screenwriter, then back to the films. Where no
        noun names the first step, the verb beside the topic does, for a relation the graph
        chains (`chained`: between things of one kind, walked either way), from its subject
        or its object (`candidates.walks_verb_way`): "the packages X *requires*", "the
        packages that *require* X". Which way such a relation is walked only the words'
        order tells; none, where it reaches the same entities either way (`symmetric`: "the
        countries *bordering* X"). Where link words count the steps (`by_links`), an owner
        noun that is one stands for its step of a relation the graph chains, and so does the
        verb, where it is the link word nearest the topic: "the packages that X 's
        *dependencies* rely on" walks `requires` forwards first, though "dependencies"
        names it by no letters, and "the *dependencies* of X 's packages" second. A verb
        with its particle beside the topic (`candidates.takes_a_particle`) stands for the
        first step of a relation the graph chains wherever it is a link word: "units *built
        on* units built on X" walks `reference_unit` back from X, though no word names it.
        Not a preposition: "the unit *behind* X" is X's own; nor a relation named by a verb
        (`candidates.named_by_a_verb`): "the cities that *lie in* X" walk `contains` forwards
        from X, against what the verb's object would read."""
        def stands_for(word: int, relation: str, linked: bool) -> bool:
            return word in self.naming_positions(relation) or (by_links and linked and relation in chained)

        against = sum(1 for noun, (relation, forward) in zip(self.owner_nouns, steps)
                      if stands_for(noun, relation, noun in self.link_at) and relation not in symmetric
                      and not walks_owner_way(relation, forward, self.words[noun]))
        if not self.owner_nouns and self.topic_verb is not None:
            (relation, forward), (verb, subject) = steps[0], self.topic_verb
            against += (relation in chained and relation not in symmetric
                        and (stands_for(verb, relation, self.link_at[:1] == [verb])
                             or (verb in self.link_at and takes_a_particle(self.words, verb)
                                 and not named_by_a_verb(relation)))
                        and not walks_verb_way(relation, forward, subject))
        return against + self.against_participles(steps, chained, symmetric)

    def against_joined_verb(self, steps: ChainKey, joins: dict[str, list[StepTuple]], chained: set[str],
                            symmetric: Collection[str]) -> int:
        """First steps, of the path and of its joins, that walk a relation the graph chains
        against the way the verb beside one of several topics reads it (`joined_verb`):
        "which unit of the X group is *defined from* the X" walks `reference_unit` back from
        the pint, to the units defined from it, and `unit_group` (no chain) either way. Which
        side is the verb's topic the question's masks do not say; a side that walks no chained
        relation first is free."""
        if self.joined_verb is None:
            return 0
        _, subject = self.joined_verb
        firsts = [steps[0], *(tuple(side[0]) for side in joins.values() if side)]
        return sum(1 for relation, forward in firsts if relation in chained and relation not in symmetric
                   and not walks_verb_way(relation, forward, subject))

    def against_participles(self, steps: ChainKey, chained: set[str], symmetric: Collection[str]) -> int:
        """Passive participles naming a relation the graph chains that no step walks their
        way (`candidates.passive_participles`): from what "by" leads to, the verb's subject,
        to the noun before it. "the packages *required* by the packages that X requires"
        walks `requires` forwards twice; a walk there and back leaves "required" read
        backwards. The first step is the topic's own verb's or owner noun's, where one names it."""
        if not self._participles:  # most questions: the beam scores every hop's groups
            return 0
        first_word = self.owner_nouns[0] if self.owner_nouns else self.topic_verb[0] if self.topic_verb else None
        against = 0
        for relation in {r for r, _ in steps if r in chained and r not in symmetric}:
            naming = self.naming_positions(relation)
            asked = sum(1 for at in self._participles if at in naming)
            owned = first_word in naming
            walked = sum(1 for at, (r, forward) in enumerate(steps)
                         if r == relation and not (at == 0 and owned) and walks_verb_way(r, forward, True))
            against += max(0, asked - walked)
        return against

    def _symmetric(self, first_steps: Iterable[tuple[str, StepTuple, Iterable[str]]]) -> set[str]:
        """`symmetric_relations`, read only where `against_word_order` reads the word order
        (an owner noun, the topic's verb, a passive participle): a walk's beam ranks
        thousands of groups a hop."""
        reads = self.owner_nouns or self.topic_verb is not None or self._participles
        return symmetric_relations(first_steps) if reads else set()

    def walked_too_few_times(self, steps: ChainKey, chained: set[str]) -> int:
        """Words naming a relation the graph chains that the path leaves unexplained: one
        mention, one step (`mentions`), so "the authors of the *requirements* of the
        *requirements* of X" walks `requires` twice. Not the asked word ("which *countries*
        border the *country* ..."), unless it is an owner noun ("name the *requirements* of
        X 's requirements"), and not a relation the graph does not chain, whose second
        naming asks to walk back (`named_twice`)."""
        walks = Counter(relation for relation, _ in steps)
        kinds_only = self.asked_at.difference(self.owner_nouns)
        return sum(max(0, mentions(self.naming_positions(r) - kinds_only) - n)
                   for r, n in walks.items() if r in chained)

    def named_too_few_times(self, steps: ChainKey) -> list[bool]:
        """For each step, whether it walks a relation the same way once more than the
        question has mentions of it (`mentions`): one mention, one step. "which countries
        border the country whose capital is X" walks `borders` once, not on to the
        neighbours' neighbours; "the neighbours of the neighbours of X" names it twice."""
        seen: dict[StepTuple, int] = {}
        again = []
        for step in steps:
            seen[step] = seen.get(step, 0) + 1
            named = mentions(self.naming_positions(step[0]))
            again.append(0 < named < seen[step])
        return again

    def asked_elsewhere(self, steps: ChainKey, joins: dict[str, list[StepTuple]]) -> frozenset[int]:
        """The words saying what is asked that name a relation the path walks backwards
        before its last step, and not at it: they say what the answers are, and that step
        leaves an entity of their kind behind ("which *capitals* belong to the neighbouring
        countries of X 's nation" walks `capital` back from X, a capital, to its nation).
        Not a step forward: that reaches the kind it is named after, which the answers may
        share ("which *countries* border X 's country")."""
        last = frozenset().union(self.naming_positions(steps[-1][0]),
                                 *(self.naming_positions(side[-1][0]) for side in joins.values() if side))
        behind = frozenset().union(*(self.naming_positions(r) for r, forward in steps[:-1] if not forward))
        return (behind & self.asked_at) - last

    def ends_at_heads_of_asked(self, steps: Sequence[StepTuple]) -> bool:
        """The question asks for what the path's last relation is named after ("which
        *countries* ..." and `country`, whose tails are countries) and the path walks that
        relation backwards, to its heads (the cities of those countries)."""
        relation, forward = steps[-1]
        return not forward and bool(self.naming_positions(relation) & self.asked_at)

    def against_the_words_way(self, steps: ChainKey, joins: dict[str, list[StepTuple]], chained: set[str],
                              symmetric: Collection[str], by_links: bool) -> int:
        """Steps against the word order: the path's own (`against_word_order`) and its
        joins' first steps (`against_joined_verb`)."""
        return (self.against_word_order(steps, chained, symmetric, by_links)
                + self.against_joined_verb(steps, joins, chained, symmetric))

    def word_order_reads_last_step(self, steps: ChainKey, joins: dict[str, list[StepTuple]], chained: set[str],
                                   symmetric: Collection[str], by_links: bool, paid: int) -> bool:
        """The word order reads which way the path walks its last relation
        (`against_the_words_way`): the path pays nothing for it (`paid`, what it pays as
        walked), and would pay walked the other way. Then the asked words' letters do not:
        "which *unit* of G is defined from the pint" walks `reference_unit` back from the
        pint, whose verb and particle read it, to units though "unit" names the relation
        after its tails."""
        relation, forward = steps[-1]
        other_way = (*steps[:-1], (relation, not forward))
        return not paid and bool(self.against_the_words_way(other_way, joins, chained, symmetric, by_links))

    def named_twice(self, relation: str, chained: Collection[str]) -> bool:
        """The question names the relation in two places apart by two forms of one word
        ("which elements did the *discoverer* of X *discover*"): it walks the relation there
        and back, to the topic's siblings. The same word twice chains the relation where
        the graph does (`chained`: its tails are its heads, "X 's father 's father"), and
        walks it back where it cannot ("which elements were *discovered* by the person who
        *discovered* X": a discoverer discovers, it is not discovered), unless that word
        names, in both places, a relation the graph chains: "the symbol of the *unit* that
        X 's reference *unit* is defined from" walks `reference_unit` twice, and `base_unit`,
        which "unit" names too, no walk back; so do "the *units* that X 's reference *unit*
        ...", one word in two inflections (`one_word`: "*required* by the packages that X
        *requires*"). Words of two roots ("in which *years* did X *discover*") name two
        relations. The word that says what is asked is not one of the two: "which
        *countries* border the *country* whose capital is X" names the answers' kind and the
        middle's, and walks `borders` once."""
        positions = sorted(self.naming_positions(relation) - self.asked_at)
        pairs = [(a, b) for a, b in combinations(positions, 2) if b - a > 1 and self.words[a][:4] == self.words[b][:4]]
        if any(not one_word(self.words[a], self.words[b]) for a, b in pairs):
            return True
        if not pairs or relation in chained:
            return False
        # Read only for a word standing twice: the beam scores every hop's relations.
        chaining = frozenset().union(*(self.naming_positions(r) for r in chained))
        return any(not {a, b} <= chaining for a, b in pairs)

    def links_count_steps(self, relations: Iterable[str]) -> bool:
        """Whether the question's link words say how many steps the chain has: where no
        word outside those saying what is asked names a relation the candidates walk,
        every step is unnamed alike, and counting them only makes the shortest path win
        ("who *wrote* the packages that X 's *dependencies* *depend* on", where the graph
        says `author` and `requires`). The asked words name the kind of the answers, and
        of the middles where they stand again, not the links: "what *unit* *defines* the
        *unit* that *defines* the *unit* X is *defined* from" is three steps along
        `reference_unit`, which only "unit" names. Unless an asked word is a relational
        noun ("name the *capital* cities of X 's neighbours"): that is a link itself. Not
        for siblings ("who appeared in the *same* movie with X"): one word names two steps."""
        if not self.link_at or self.asks_for_siblings:
            return False
        naming = frozenset().union(*(self.naming_positions(r) for r in relations))
        return naming <= self.asked_at and not any(self._relational(i) for i in naming)

    def detours(self, steps: Sequence[StepTuple], chains: Collection[str] = ()) -> bool:
        """The path walks a relation there and back before its last step, and the question
        names that relation by one word at most, and not as the topic's own phrase: "when
        was X *born*" is X's birth date, not that of someone born where X was (`born_in`
        there and back, then `birth_date`). Two words naming it ask for the walk ("the
        films *starred* by X 's *actors*"), and so does a topic's phrase, which makes a
        noun of the middle ("who starred films for the *screenwriter* of X"). Not a
        relation in `chains` (the graph chains it, one way: a unit is defined from a unit):
        two words naming it ask to walk on, "the units that X 's reference unit is defined
        from" are two steps forwards, and the walk back reaches X's reference unit's siblings."""
        def asked(relation: str) -> bool:
            naming = self.naming_positions(relation) - self.asked_at
            return relation not in chains and (mentions(naming) >= 2 or bool(naming & self.topic_phrase))

        return any(reverses(a, b) and not asked(a[0]) for a, b in pairwise(steps[:-1]))

    def ends_mid_chain(self, steps: Sequence[StepTuple]) -> bool:
        """The path's last relation is named only where the topic's own phrase is ("X 's
        *country*") while the question asks for something else ("what *money* ..."): a
        one-hop path that walks it stops at the first link of the chain the question names
        (`score` asks this of one-hop paths only: a longer one walks on from that link). Not
        where the question equates that phrase with what it asks ("X 's *capital* is which
        *city*": `equated_with_asked`)."""
        naming = self.naming_positions(steps[-1][0])
        return bool(self.asked_at and not self.phrase_is_asked and naming and naming <= self.topic_phrase
                    and not naming & self.asked_at)

    def named_less_than_another(self, chains: Sequence[ChainKey]) -> list[list[bool]]:
        """For each step of each chain, whether a relation another chain walks there instead
        (after the same steps) is named more fully (`named_less_fully`): "the unit that defines
        the *reference unit* of X" names `reference_unit`, and `base_unit` by "unit" alone."""
        there: dict[ChainKey, set[str]] = {}
        for steps in chains:
            for at, (relation, _) in enumerate(steps):
                there.setdefault(steps[:at], set()).add(relation)
        less = {before: named_less_fully({r: self.naming_positions(r) for r in relations})
                for before, relations in there.items()}
        return [[relation in less[steps[:at]] for at, (relation, _) in enumerate(steps)] for steps in chains]

    def nearest_relation(self, i: int, relations: Collection[str]) -> str | None:
        """Of `relations`, the one whose words' embedding is most alike the question's word
        at `i` (the verb a question ends on: "*measure*" is nearer "quantity kind" than
        "symbol", "*abbreviated*" nearer "symbol" than "reference unit")."""
        ordered = sorted(r for r in relations if relation_naming_words(r))
        if not ordered:
            return None
        vectors = self.embedder.encode([self.words[i], *(" ".join(relation_naming_words(r)) for r in ordered)])
        return ordered[int(np.argmax(vectors[1:] @ vectors[0]))]

    def _synonyms_of(self, relation_words: list[str]) -> frozenset[int]:
        if not relation_words or not self._may_name:
            return frozenset()
        if self._word_vectors is None:
            self._word_vectors = self.embedder.encode([self.words[i] for i in self._may_name])
        close = (self._word_vectors @ self.embedder.encode(relation_words).T >= self.weights.synonym).any(axis=1)
        return frozenset(self._may_name[k] for k in np.flatnonzero(close))

    @classmethod
    def for_state(cls, embedder: Embedder, weights: ScoreWeights, state: PoGState, *,
                  synthetic_memory: bool = False) -> PathScorer:
        """The scorer of one question's paths; a synthesised memory's prior votes with
        `weights.synthetic_memory`."""
        if synthetic_memory:
            weights = weights.model_copy(update={"memory": weights.synthetic_memory})
        names = [t.name or t.id for t in state.get("topics") or []]
        indicator = state.get("indicator")
        # Only a path memory's depth earns the bonus: the small model's own guess is too
        # often deeper than the question (MetaQA dev: 2 or 3 for most 1-hop questions), and
        # rewarding it ranked the longer paths first.
        depth = state.get("predicted_depth") if state.get("depth_source") == "memory" else None
        return cls(embedder, weights, masked_question(state),
                   mask_question(indicator, names) if indicator and indicator != state["question"] else None,
                   state.get("path_prior") or [], depth, synthetic_prior=synthetic_memory,
                   asked_kind_steps=state.get("asked_kind_steps") or ())

    def score(self, items: Sequence[tuple[ChainKey, dict[str, list[StepTuple]], int]],
              returning: Sequence[bool] | None = None, from_every_end: Sequence[bool] | None = None,
              symmetric: Collection[str] = (), both_ways: Collection[str] = ()) -> list[dict[str, float]]:
        """Score parts of each (relation sequence, joins, depth), with their weighted sum as
        "total"; `returning`, where known, says which paths end where they have been,
        `from_every_end` whose last step leaves from every end of the hop before,
        `symmetric` which relations reach the same entities from the topic either way, and
        `both_ways` which a topic walks both ways at all (`walked_both_ways`)."""
        if not items:
            return []
        vectors = self.embedder.encode([chain_text(steps, joins) for steps, joins, _ in items])
        to_question = vectors @ self.question_vector
        to_indicator = vectors @ self.indicator_vector if self.indicator_vector is not None else np.zeros(len(items))
        w = self.weights
        # A joined path walks its joins' steps too (the other topic's side of a conjunction).
        walked = [[r for r, _ in steps] + [r for side in joins.values() for r, _ in side] for steps, joins, _ in items]
        relations = {r for rs in walked for r in rs}
        # The relations the question names, among those the candidates walk, and of them the
        # one a path should walk first.
        asked = {r for r in relations if self.named(r)} if w.missing or w.first else set()
        # Counted by the words that name them: "study" names four of Freebase's education
        # relations, and a path that left them all out paid for four where the question said one.
        asked_words = frozenset().union(*(self.naming_positions(r) for r in asked))
        first = self.first_relation(asked) if w.first else None
        spare_at = self.spare_words(relations)
        spare = len(spare_at)
        # The topic's own phrase names no relation ("X 's neighbours"): it is the first step.
        topic_spare = bool(self.topic_phrase & set(spare_at))
        # A spare word excuses no step where a path as long names every step; one that
        # returns to its start (the capital's country) names them only by walking back.
        returning = returning or [False] * len(items)
        kinds = self.kinds_reached([steps for steps, _, _ in items], from_every_end or [False] * len(items))
        by_links = self.links_count_steps(relations)
        # A last step that reaches the kind of thing asked for is named by the asked words,
        # where they name no relation themselves ("which *country* ...": `country`).
        kind_asked = bool(self.asked_kind_steps) and not any(self.naming_positions(r) & self.asked_at
                                                               for r in relations)
        ends_at_asked_kind = [kind_asked and steps[-1] in self.asked_kind_steps for steps, _, _ in items]
        # A spare word that what is asked owns ("the people whose *packages* ...") stands for
        # the last step, where the graph's kinds do not name it: they name which one it is.
        owned_spare = not any(ends_at_asked_kind) and any(owned_by_asked(self.words, i, self.asked_at)
                                                          for i in spare_at)
        # Where no word names a relation, a path ending at another kind than any reaches
        # that is asked for leaves the asked words unexplained ("*who* wrote the packages
        # that X 's packages need": `author`, not `development_status`).
        other_kind = [by_links and any(ends_at_asked_kind) and not at_kind for at_kind in ends_at_asked_kind]
        # Where the asked words name a relation, the chain ends on it: "what *unit* defines the
        # unit that defines the unit X is defined from" ends on `reference_unit`, not `symbol`.
        if by_links and any(self.named(r) for r in relations):
            other_kind = [other or not self.naming_positions(steps[-1][0])
                          for other, (steps, _, _) in zip(other_kind, items, strict=True)]
        # A closing verb that names no relation names the last step: "how is the unit behind
        # X *abbreviated*" walks `reference_unit`, then `symbol`, which no word names by its letters.
        last_named_by_verb = self.closing_verb_at is not None and not any(
            self.closing_verb_at in self.naming_positions(r) for r in relations)
        # Which relation: the one whose words are most alike the verb among the last steps
        # ("what does the unit ... *measure*": `quantity_kind`, not `symbol`).
        verb_names = self.nearest_relation(self.closing_verb_at, {steps[-1][0] for steps, _, _ in items}) \
            if last_named_by_verb else None
        # It is a step after those the other words name: a path no longer than their mentions
        # leaves it out ("where were the elements *discovered* by X *found*" is not
        # `discovered_by` alone, nor "how is the *unit* behind X abbreviated" `reference_unit`).
        verb_left_out = [last_named_by_verb and not by_links and len(steps) <= mentions(
            frozenset().union(*(self.naming_positions(r) for r, _ in steps))) for steps, _, _ in items]

        # A link word said again that names none of the relations says one relation walked
        # as many times: "what unit *defines* the unit that *defines* the unit X is defined
        # from" walks `reference_unit` three times, not on along `unit_group`. Which relation,
        # not how many steps: a shorter path pays for its length elsewhere. Said again in one
        # phrase, the same way: "units *built on* units *built on* X" is no walk to X's system
        # along `base_unit` and back to the system's other units.
        unnamed_links = [i for i in self.link_at if not any(i in self.naming_positions(r) for r in relations)]
        repeats = repeated_link(self.words, unnamed_links)
        same_way = 0 if self.asks_for_siblings else repeated_phrase(self.words, unnamed_links)
        repeats_unwalked = [len(steps) >= repeats > max(Counter(r for r, _ in steps).values(), default=0)
                            or len(steps) >= same_way > max(Counter(steps).values(), default=0)
                            for steps, _, _ in items]

        def unnamed_steps(steps: ChainKey, kinds_of: list[frozenset[int]], last_named_by_kind: bool,
                          named_less: list[bool]) -> list[bool]:
            if by_links:  # counted against the link words below instead
                return [False] * len(steps)
            last = len(steps) - 1
            return [((not self.named(r) or less) and not kind
                     and not (at == last and (last_named_by_kind or (last_named_by_verb and r == verb_names))))
                    or again
                    for at, ((r, _), kind, again, less) in enumerate(zip(
                        steps, kinds_of, self.named_too_few_times(steps), named_less, strict=True))]

        unnamed = [unnamed_steps(steps, kinds_of, at_kind, less)
                   for (steps, _, _), kinds_of, at_kind, less in zip(
                       items, kinds, ends_at_asked_kind, self.named_less_than_another([s for s, _, _ in items]),
                       strict=True)]
        named_lengths = {len(steps) for (steps, _, _), back, gaps in zip(items, returning, unnamed, strict=True)
                         if not back and not any(gaps)}
        chained = chained_relations((steps for steps, _, _ in items), both_ways)
        siblings = self.asks_for_siblings or any(self.named_twice(r, chained) for r in relations)
        # Where each path's steps may stand for spare words, and how many words it may use
        # (none where a path as long names every step, but for the last step, where what is
        # asked owns a spare word: "the people whose *packages* require X" asks for no walk
        # there and back along `requires`): a path that walks another's steps but those
        # skips links of the chain.
        standing = [self.stand_ins(gaps, topic_spare, owned_spare) if len(steps) not in named_lengths
                    else [at for at in self.stand_ins(gaps, False, owned_spare) if at == len(steps) - 1]
                    for (steps, _, _), gaps in zip(items, unnamed, strict=True)]
        allowed = [spare if len(steps) not in named_lengths else len(at)
                   for (steps, _, _), at in zip(items, standing, strict=True)]
        skipped = self.skipped_links([(steps, at if len(at) <= most else [])
                                      for (steps, _, _), at, most in zip(items, standing, allowed, strict=True)])
        scored = []
        for i, (steps, joins, depth) in enumerate(items):
            way = self.against_the_words_way(steps, joins, chained, symmetric, by_links)
            parts = {"question": float(to_question[i]), "indicator": float(to_indicator[i]),
                     "memory": self.prior.get(steps, 0.0),
                     "depth": float(self.predicted_depth is not None and depth == self.predicted_depth),
                     "back": float(sibling_mismatch(steps, siblings)
                                   or (not siblings and self.detours(steps, chained.difference(symmetric)))),
                     "unnamed": float(self.unexplained_steps(unnamed[i], standing[i], allowed[i])),
                     "middle": float(depth == 1 and self.ends_mid_chain(steps)),
                     "kind": float(self.ends_at_heads_of_asked(steps)
                                   and not self.word_order_reads_last_step(steps, joins, chained, symmetric, by_links,
                                                                           way)),
                     "missing": float(len(asked_words.difference(*(self.naming_positions(r) for r in walked[i]),
                                                                 *kinds[i]) | self.asked_elsewhere(steps, joins))
                                      + self.walked_too_few_times(steps, chained) + verb_left_out[i]
                                      + repeats_unwalked[i]),
                     "skipped": float(skipped[i]),
                     "first": float((first is not None and steps[0][0] != first)
                                    or (topic_spare and self.named(steps[0][0]))),
                     "way": float(way)}
            if by_links:  # as many steps as link words: each step more, or link word more, is unexplained
                parts["unnamed"] = float(abs(len(steps) - len(self.link_at)) + other_kind[i])
            if self._vote_void(parts) or (by_links and self.synthetic_prior and parts["unnamed"]):
                # A synthesised vote is matched by wording, which says least where no word names a
                # relation ("which libraries do the projects of X use" is nearest "the packages of X").
                parts["memory"] = 0.0
            parts["total"] = (w.question * parts["question"] + w.indicator * parts["indicator"]
                              + w.memory * parts["memory"] + w.depth * parts["depth"] - w.length * (depth - 1)
                              - w.back * parts["back"] - w.unnamed * parts["unnamed"] - w.missing * parts["missing"]
                              - w.skipped * parts["skipped"]
                              - w.first * parts["first"] - w.way * parts["way"] - w.middle * parts["middle"]
                              - w.kind * parts["kind"])
            scored.append({k: round(v, 4) for k, v in parts.items()})
        return scored

    def _vote_void(self, parts: dict[str, float]) -> bool:
        """A synthesised memory's vote does not count for a path the question's words
        count against (`_CONTRADICTIONS`: the topic's phrase unexplained, a walk back
        unasked, a loop, no value where one is asked, ...). Not for unnamed steps (a
        synonym the letters do not show is the memory's to vouch for), nor for `missing`:
        a word that names the answer's kind shares letters with a relation ("the capitals
        of the *countries* bordering X", `country`), and voiding the vote for it lost
        more questions than it won on the geo and languages tuning parts (save where a
        longer path explains the question whole: `_outcomposed`). Nor for both
        together: "what money do the *countries* bordering X use" walks `currency`, which
        no word names, and misses `country`, and its vote is the one that carries it."""
        return self.synthetic_prior and contradicted(parts)

    def _outcomposed(self, candidates: Sequence[PathCandidate], parts: Sequence[dict[str, float]]) -> list[bool]:
        """Whose synthesised vote is void because the question composes more than the
        written question it is nearest (`outcomposed` by the deepest candidate the
        question's words explain whole). "which language is official in the country the
        director of X comes from" is nearest "what language is X in" (`film.film.language`),
        and the chain through the director explains every word (Freebase possessive 3-hop
        tuning part)."""
        if not self.synthetic_prior:
            return [False] * len(candidates)
        deepest = max((c.depth for c, p in zip(candidates, parts, strict=True) if explained(p)), default=0)
        return [outcomposed(p, c.depth, deepest) for c, p in zip(candidates, parts, strict=True)]

    def rank(self, candidates: Sequence[PathCandidate], names: dict[str, str | None] | None = None
             ) -> list[PathCandidate]:
        """The candidates with their scores set, best first (ties keep their order); `names`
        of their ends, for the value test (an id is its own name where none is given)."""
        keys = [chain_key(c.steps) for c in candidates]
        looping = [loops(c.seed, c.hops, steps) for c, steps in zip(candidates, keys, strict=True)]
        first_steps = [(c.seed, steps[0], c.hops[0]) for c, steps in zip(candidates, keys, strict=True) if c.hops]
        both_ways = walked_both_ways(first_steps)
        parts = self.score([(steps, c.joins, c.depth) for c, steps in zip(candidates, keys, strict=True)],
                           [returns(c.seed, c.hops) for c in candidates], [c.from_every_end for c in candidates],
                           self._symmetric(first_steps), both_ways)
        names = names or {}
        for candidate, p, loop in zip(candidates, parts, looping, strict=True):
            p["loop"] = float(loop)
            p["value"] = float(self.asks_for_value and not any(is_value(names.get(e) or e) for e in candidate.ends))
            p["total"] -= self.weights.loop * p["loop"] + self.weights.value * p["value"]
        for p, many in zip(parts, self.many_where_one(candidates), strict=True):
            p["number"] = float(many)
            p["total"] -= self.weights.number * p["number"]
        outcomposed = self._outcomposed(candidates, parts)
        fits = self.end_fits(candidates, names, [p["total"] for p in parts])
        asked_by_kind = self.siblings_asked_by_kind(keys, parts, fits, both_ways)
        for steps, p, asked in zip(keys, parts, asked_by_kind, strict=True):
            if asked:
                p["total"] += self.weights.back * p["back"] + self.weights.kind * p["kind"]
                p["back"] = p["kind"] = 0.0
                p["memory"] = 0.0 if self._vote_void(p) else self.prior.get(steps, 0.0)
                p["total"] += self.weights.memory * p["memory"]
        for p, fit, void in zip(parts, fits, outcomposed, strict=True):
            p["fit"] = round(fit, 4)
            p["total"] = round(p["total"] + self.weights.fit * fit, 4)
            if (void or self._vote_void(p)) and p["memory"]:
                p["total"], p["memory"] = round(p["total"] - self.weights.memory * p["memory"], 4), 0.0
        scored = [c.model_copy(update={"score": p["total"], "score_parts": p}) for c, p in zip(candidates, parts, strict=True)]
        return sorted(scored, key=lambda c: -c.score)

    def many_where_one(self, candidates: Sequence[PathCandidate]) -> list[bool]:
        """Which paths step from one entity to many, before their last step, where the
        question names the chain's middle in the singular (`says_one`: "the symbol of the
        *unit* the yard is defined from") and another candidate walks the same steps up to
        there and that step the other way, to one entity. Many is `MANY_FOR_ONE` or more:
        the yard's reference unit is the metre, and seven units are defined from the yard.
        Nothing else reads which way to walk a relation between things of one kind where no
        word names it. Two are too few to tell (a person's parents, against the children);
        a step from several to many follows the graph, not the reading (the debye is
        defined from the angstrom and the coulomb, and they from three units)."""
        if not self.says_one:
            return [False] * len(candidates)
        one_at = {(c.seed, chain_key(c.steps[:i + 1])) for c in candidates
                  for i, hop in enumerate(c.hops) if len(hop) == 1}

        def wrong_way(c: PathCandidate) -> bool:
            steps = chain_key(c.steps)
            for i, hop in enumerate(c.hops[:-1]):
                before = c.hops[i - 1] if i else [c.seed]
                if len(before) == 1 and len(hop) >= MANY_FOR_ONE:
                    relation, forward = steps[i]
                    if (c.seed, (*steps[:i], (relation, not forward))) in one_at:
                        return True
            return False

        return [wrong_way(c) for c in candidates]

    def siblings_asked_by_kind(self, chains: Sequence[ChainKey], parts: Sequence[dict[str, float]],
                               fits: Sequence[float], both_ways: Collection[str] = ()) -> list[bool]:
        """Which walks back to siblings the question asks for by their kind, not by a cue
        word: "which *elements* were found by the discoverer of element number X" asks for
        elements, the discoverer's other elements fit that (0.45-0.50) and no path the
        question explains otherwise reaches anything like it (the discoverer, 0.21; the
        country, 0.24). Such a path pays neither `back` nor `kind` (the graph's names say
        what its ends are, where "name the elements *discovered* by ..." reads as asking
        for what `discovered_by` is named after), and its synthesised vote stands. The
        ends must fit the asked words by `FIT_MARGIN` more than every end that the
        question's words explain whole without walking back. Not a walk back along a
        relation the graph chains: its heads and tails are of one kind, so its siblings are
        what every other end is, and a closer fit of their names is noise (a package's
        dependents against its dependencies' dependencies)."""
        chained = chained_relations(chains, both_ways)
        ending_back = [len(steps) >= 2 and reverses(steps[-2], steps[-1]) for steps in chains]
        rivals = [fit for fit, p, back in zip(fits, parts, ending_back, strict=True) if fit and not back and explained(p)]
        if not self._asked_text or not rivals:
            return [False] * len(chains)
        bar = max(rivals) + FIT_MARGIN
        return [back and bool(p["back"] or p["kind"]) and fit >= bar and not self.detours(steps)
                and steps[-1][0] not in chained
                for steps, p, fit, back in zip(chains, parts, fits, ending_back, strict=True)]

    def end_fits(self, candidates: Sequence[PathCandidate], names: dict[str, str | None], totals: Sequence[float],
                 shown: int = 3) -> list[float]:
        """How alike what the question asks for is to each candidate's end: the cosine of
        the asked words and the mean of the first `shown` names at its end (0 where the
        question does not say what it asks for, or the end has no name). Only the
        `FIT_CANDIDATES` best by `totals` get one: a weak term decides between paths the
        others score nearly alike, and a Freebase question has hundreds of candidates."""
        fits = [0.0] * len(candidates)
        if not self._asked_text:
            return fits
        best = sorted(range(len(candidates)), key=lambda i: -totals[i])[:FIT_CANDIDATES]
        ends = {i: [n for n in (names.get(e) for e in candidates[i].ends[:shown * 2]) if n][:shown] for i in best}
        texts = list(dict.fromkeys(n for end in ends.values() for n in end))
        if not texts:
            return fits
        asked = self.embedder.encode([self._asked_text])[0]
        vectors = dict(zip(texts, self.embedder.encode(texts), strict=True))
        for i, end in ends.items():
            if end:
                mean = np.mean([vectors[n] for n in end], axis=0)
                fits[i] = float(mean @ asked / (np.linalg.norm(mean) or 1.0))
        return fits

    def beam(self, groups: list[PathGroup], names: dict[str, str | None], keep: int) -> list[PathGroup]:
        """The `keep` best groups of one exploration hop: the ones worth extending."""
        if len(groups) <= keep:
            return groups
        items = []
        for g in groups:
            steps = chain_key((s.relation, s.forward) for s in g.chain)
            items.append((steps, {}, named_depth(steps, [list(h) for h in g.hops], names)))
        looping = [loops(g.seed, g.hops, [(s.relation, s.forward) for s in g.chain]) for g in groups]
        # Only a backward last step tells what reaches the ends before it (`kinds_reached`).
        every_end = [not g.chain[-1].forward and leaves_every_end(g) for g in groups]
        first_steps = [(g.seed, (g.chain[0].relation, g.chain[0].forward), g.hops[0]) for g in groups if g.chain]
        parts = self.score(items, [returns(g.seed, g.hops) for g in groups], every_end,
                           self._symmetric(first_steps), walked_both_ways(first_steps))
        totals = [p["total"] - self.weights.loop * loop for loop, p in zip(looping, parts, strict=True)]
        order = sorted(range(len(groups)), key=lambda i: -totals[i])
        return [groups[i] for i in order[:keep]]


def named_less_fully(naming: dict[str, frozenset[int]]) -> frozenset[str]:
    """The relations whose naming words (`PathScorer.naming_positions`) another relation's
    include, and more: "the *reference unit* of X" names `reference_unit` by both words and
    `base_unit` by "unit" alone, "the *official language*" `official_language` and not a
    film's `language`. A word two relations share names the one the question says more of."""
    named = [positions for positions in naming.values() if positions]
    return frozenset(r for r, positions in naming.items() if positions and any(positions < other for other in named))


def mentions(positions: Collection[int]) -> int:
    """How many times the words at `positions` name a relation: words side by side are one
    mention ("the X 's *reference* *unit*" names `reference_unit` once, as "the *release*
    *year* of" names `release_year` once), words apart are one each."""
    return sum(1 for i in positions if i - 1 not in positions)


def symmetric_relations(first_steps: Iterable[tuple[str, StepTuple, Iterable[str]]]) -> set[str]:
    """Of (topic, first step, the entities it reaches), the relations a topic walks both ways
    to the same entities (`borders`, stored both ways): which way one is walked says nothing."""
    reached: dict[tuple[str, StepTuple], frozenset[str]] = {}
    for seed, (relation, forward), hop in reversed(list(first_steps)):  # the last of a key's hops counts
        key = (seed, (str(relation), bool(forward)))
        if key not in reached:
            reached[key] = frozenset(hop)
    return {relation for (seed, (relation, forward)), ends in reached.items()
            if forward and reached.get((seed, (relation, False))) == ends}


def walked_both_ways(first_steps: Iterable[tuple[str, StepTuple, Iterable[str]]]) -> set[str]:
    """Of (topic, first step, the entities it reaches), the relations a topic walks both
    forwards and backwards: it is a head and a tail of each, so the graph chains them (the
    pint is defined from the quart, the gill from the pint), though no candidate walks one
    twice (a two-topic question's paths meet after a step)."""
    walked = {(seed, str(relation), bool(forward)) for seed, (relation, forward), _ in first_steps}
    return {relation for seed, relation, forward in walked if forward and (seed, relation, False) in walked}


def chained_relations(chains: Iterable[ChainKey], both_ways: Collection[str] = ()) -> set[str]:
    """The relations the graph chains: some candidate walks one twice the same way in a row
    (its tails are its heads: a requirement's requirement, a neighbour's neighbour), or a
    topic walks one both ways (`both_ways`, `walked_both_ways`)."""
    return {a[0] for steps in chains for a, b in pairwise(steps) if a == b} | set(both_ways)


_CONTRADICTIONS = ("back", "middle", "kind", "first", "way", "loop", "value", "skipped")
FIT_CANDIDATES = 20  # candidates whose ends' names are embedded for `fit`, the best first
# How much better one path's ends must fit the asked words than another's for that to decide
# (`siblings_asked_by_kind`, `fits_better`; elements development phrasings: the discoverer's
# elements 0.45-0.50 against the discoverer 0.21).
FIT_MARGIN = 0.1


def contradicted(parts: dict[str, float]) -> bool:
    """Whether the question's own words count against the path (score parts): it never
    walks back where the question asks for siblings, ends at the wrong kind, loops, ..."""
    return any(parts.get(k) for k in _CONTRADICTIONS)


def fits_better(parts: dict[str, float], than: dict[str, float]) -> bool:
    """Whether a path's ends fit the words saying what is asked (score parts' `fit`) by
    `FIT_MARGIN` more than another path's ends: what the graph's names say the
    question asks for, beside what its relation words say. A `fit` of 0 (not computed,
    or nothing asked) says nothing."""
    other = than.get("fit", 0.0)
    return other > 0.0 and parts.get("fit", 0.0) >= other + FIT_MARGIN


def explained(parts: dict[str, float]) -> bool:
    """Whether the question's words explain the path whole (score parts): they name every
    step, the path walks every relation they name, and they count nothing against it."""
    return not contradicted(parts) and not parts.get("unnamed") and not parts.get("missing")


def outcomposed(parts: dict[str, float], depth: int, explained_depth: int) -> bool:
    """Whether a path (score parts, depth) leaves a word naming a relation unexplained
    (`missing`) and is shorter than a path of `explained_depth` that the question's words
    explain whole: the question composes more than it walks."""
    return bool(parts.get("missing")) and depth < explained_depth


def returns(seed: str, hops: Sequence[Iterable[str]]) -> bool:
    """The path ends where it has already been: its ends are all its start or all among
    one earlier hop's entities ("the countries bordering X, their capitals, their
    countries" is the countries again). It names its steps only by walking back: it does
    not count as a path that names every step (`PathScorer.score`)."""
    if len(hops) < 2:
        return False
    ends = set(hops[-1])
    return ends <= {seed} or any(ends <= set(hop) for hop in hops[:-1])


def loops(seed: str, hops: Sequence[Iterable[str]], steps: Sequence[StepTuple] = ()) -> bool:
    """A path that `returns` and pays for it: its last steps add nothing but a way to name
    the middle of the chain. Not one whose last step walks the one before it back: it ends
    among its middle's siblings (`sibling_mismatch` judges those), even where the middle has
    no sibling but itself (Thallium's discoverer discovered nothing else); unless it walked
    that way before (r, r⁻¹, r), or ends at its start. Nor one that walks one relation the
    same way twice: a requirement's requirement may be a requirement too, and is still one."""
    if not returns(seed, hops):
        return False
    closes_sibling_walk = (len(steps) >= 2 and reverses(steps[-2], steps[-1])
                           and (len(steps) < 3 or steps[-3] != steps[-1]))
    chains_on = len(steps) >= 2 and steps[-2] == steps[-1]
    return not (closes_sibling_walk or chains_on) or set(hops[-1]) <= {seed}


def is_value(name: str) -> bool:
    """A number or a date, as a graph writes it: "1807", "2002-02-17", "9,733,276"."""
    return as_value(re.sub(r"(?<=\d),(?=\d{3}\b)", "", name)) is not None
