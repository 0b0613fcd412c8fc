"""The rule this folder's detection runs watched (`bench/devkgs/detect/`, with
`KGQA_DETECT_RULES` naming this file): "owner way", each question where
`PathScorer.against_word_order` counts otherwise than at 92e2e46, where only the owner
noun that was the link word nearest the topic read a way (its first step's)."""

from agent.pog import scoring
from agent.pog.candidates import walks_owner_way


def install(log) -> None:
    against_word_order = scoring.PathScorer.against_word_order

    def at_92e2e46(self, steps, chained, symmetric, by_links) -> int:
        """The owner nouns' part as 92e2e46 counted it (the verb's and participles' are the same)."""
        return sum(1 for at, (noun, (relation, forward)) in enumerate(zip(self.owner_nouns, steps))
                   if (noun in self.naming_positions(relation)
                       or (by_links and at == 0 and self.link_at[:1] == [noun] and relation in chained))
                   and relation not in symmetric and not walks_owner_way(relation, forward, self.words[noun]))

    def now_owner_part(self, steps, chained, symmetric, by_links) -> int:
        return sum(1 for noun, (relation, forward) in zip(self.owner_nouns, steps)
                   if (noun in self.naming_positions(relation)
                       or (by_links and noun in self.link_at and relation in chained))
                   and relation not in symmetric and not walks_owner_way(relation, forward, self.words[noun]))

    def logged_against_word_order(self, steps, chained, symmetric=(), by_links=False):
        now = against_word_order(self, steps, chained, symmetric, by_links)
        if self.owner_nouns and (now_owner_part(self, steps, chained, symmetric, by_links)
                                 != at_92e2e46(self, steps, chained, symmetric, by_links)):
            log("owner way", self)
        return now

    scoring.PathScorer.against_word_order = logged_against_word_order
