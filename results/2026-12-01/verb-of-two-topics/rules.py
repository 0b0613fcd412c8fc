"""The rules this detection watches: `chained` widened by `walked_both_ways` (a relation a
topic is both head and tail of), logged where that adds a relation to what the candidates'
own walks chain; the verb with its particle beside one of several topics
(`against_joined_verb`), logged where it counts a step; and `kind` void where the word
order reads the last step's way (`word_order_reads_last_step`), logged where it holds for
a path that pays `kind` before."""
from agent.pog import scoring


def install(log) -> None:
    score = scoring.PathScorer.score
    reads = scoring.PathScorer.word_order_reads_last_step
    joined = scoring.PathScorer.against_joined_verb

    def logged(self, items, returning=None, from_every_end=None, symmetric=(), both_ways=()):
        walked = scoring.chained_relations(steps for steps, _, _ in items)
        if set(both_ways) - walked:
            log("both ways", self)
        return score(self, items, returning, from_every_end, symmetric, both_ways)

    def logged_reads(self, steps, joins, chained, symmetric, by_links):
        now = reads(self, steps, joins, chained, symmetric, by_links)
        if now and self.ends_at_heads_of_asked(steps):
            log("kind read by word order", self)
        return now

    def logged_joined(self, steps, joins, chained, symmetric):
        now = joined(self, steps, joins, chained, symmetric)
        if now:
            log("joined verb", self)
        return now

    scoring.PathScorer.score = logged
    scoring.PathScorer.word_order_reads_last_step = logged_reads
    scoring.PathScorer.against_joined_verb = logged_joined
