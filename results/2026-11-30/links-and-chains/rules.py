"""The rules this folder's detection runs watched (`bench/devkgs/detect/`, with
`KGQA_DETECT_RULES` naming this file), each logged where it reads otherwise than the code
before it (2c99cf4):

- "links": `PathScorer.links_count_steps` says the link words count the steps where no
  relation is named outside the asked words; before, only where no word named one;
- "detour": `PathScorer.detours` counts a walk there and back along a relation the graph
  chains one way; before, two words naming it or the topic's phrase excused it;
- "link": the question has a reflexive pronoun or a compound preposition's noun
  (`candidates.in_compound_preposition`), which `link_words` and spare relational nouns
  no longer count; logged by the text, where a scorer is made;
- "participle": `link_words` no longer counts a noun that a participle and its preposition
  follow (`candidates.heads_a_participle`), where the link words count the steps;
- "owner way": `against_word_order` reads the first step's way from the link word nearest
  the topic, an owner noun, where the link words count the steps; before, a verb only.
  Logged where it counts a step against."""

from agent.pog import scoring
from agent.pog.candidates import heads_a_participle, in_compound_preposition

REFLEXIVES = ("itself", "themselves", "himself", "herself")


def install(log) -> None:
    init = scoring.PathScorer.__init__

    def logged_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if any(w in REFLEXIVES or in_compound_preposition(self.words, i) for i, w in enumerate(self.words)):
            log("link", self)

    links_count_steps = scoring.PathScorer.links_count_steps
    detours = scoring.PathScorer.detours
    against_word_order = scoring.PathScorer.against_word_order

    def logged_links_count_steps(self, relations):
        relations = list(relations)
        now = links_count_steps(self, relations)
        before = bool(self.link_at) and not self.asks_for_siblings and not any(self.named(r) for r in relations)
        if now != before:
            log("links", self)
        if (now or before) and any(heads_a_participle(self.words, i) for i in range(len(self.words))):
            log("participle", self)
        return now

    def logged_against_word_order(self, steps, chained, symmetric=(), by_links=False):
        now = against_word_order(self, steps, chained, symmetric, by_links)
        if by_links and self.owner_nouns and now != against_word_order(self, steps, chained, symmetric, False):
            log("owner way", self)
        return now

    def logged_detours(self, steps, chains=()):
        now = detours(self, steps, chains)
        if now != detours(self, steps):
            log("detour", self)
        return now

    scoring.PathScorer.__init__ = logged_init
    scoring.PathScorer.links_count_steps = logged_links_count_steps
    scoring.PathScorer.detours = logged_detours
    scoring.PathScorer.against_word_order = logged_against_word_order
