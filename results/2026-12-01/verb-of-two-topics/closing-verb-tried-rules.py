"""The rule this detection watches: the verb a question ends on names the last step where
the asked words name no relation (not only where there are none), and, where link words
count the steps, the chain ends on the relation it names. Logged wherever the scorer asks
which relation the closing verb names (`nearest_relation`): a superset of the questions
either part can change."""
from agent.pog import scoring


def install(log) -> None:
    nearest = scoring.PathScorer.nearest_relation

    def logged(self, i, relations):
        log("closing verb", self)
        return nearest(self, i, relations)

    scoring.PathScorer.nearest_relation = logged
