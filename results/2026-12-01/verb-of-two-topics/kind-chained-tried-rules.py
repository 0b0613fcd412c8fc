"""The rules this detection watches: `chained` widened by `walked_both_ways` (a relation a
topic is both head and tail of), logged where that adds a relation to what the candidates'
own walks chain; and `ends_at_heads_of_asked` exempting chained relations, logged where a
path's last step walks back a chained relation the asked words name."""
from agent.pog import scoring


def install(log) -> None:
    score = scoring.PathScorer.score

    def logged(self, items, returning=None, from_every_end=None, symmetric=(), both_ways=()):
        walked = scoring.chained_relations(steps for steps, _, _ in items)
        chained = walked | set(both_ways)
        if set(both_ways) - walked:
            log("both ways", self)
        if any(not steps[-1][1] and steps[-1][0] in chained and self.naming_positions(steps[-1][0]) & self.asked_at
               for steps, _, _ in items if steps):
            log("kind chained", self)
        return score(self, items, returning, from_every_end, symmetric, both_ways)

    scoring.PathScorer.score = logged
