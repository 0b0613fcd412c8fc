"""The rule this folder's detection runs watched (`bench/devkgs/detect/`, with
`KGQA_DETECT_RULES` naming this file): "verb way", logged where `against_word_order` reads
the first step's way from the topic's verb for a relation the graph chains that the verb
does not name, where b9e37f8 read nothing (it read the verb there only as the nearest link
word of a question whose link words count the steps). Logged for any link word, the first version tried: a superset of the
questions the kept rule (a verb with its particle) reads."""
from agent.pog import scoring


def install(log) -> None:
    against_word_order = scoring.PathScorer.against_word_order

    def logged(self, steps, chained, symmetric=(), by_links=False):
        now = against_word_order(self, steps, chained, symmetric, by_links)
        if self.topic_verb is not None and not self.owner_nouns:
            verb, _ = self.topic_verb
            relation = steps[0][0]
            read_before = verb in self.naming_positions(relation) or (
                by_links and self.link_at[:1] == [verb] and relation in chained)
            if not read_before and verb in self.link_at and relation in chained and relation not in symmetric:
                log("verb way", self)
        return now

    scoring.PathScorer.against_word_order = logged
