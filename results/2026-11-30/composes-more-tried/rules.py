"""Detection for `PathScorer._outcomposed`'s wider reading (a synthesised vote is void where
a deeper candidate, every step named and nothing against it, leaves fewer words out): each
question where it voids a vote that the old reading (only a deeper candidate the words
explain whole) kept. Mode (b) only: without a synthesised memory nothing is voided."""

import functools

from agent.pog.scoring import PathScorer, explained, outcomposed


def install(log) -> None:
    wider = PathScorer._outcomposed

    @functools.wraps(wider)
    def watched(self, candidates, parts):
        new = wider(self, candidates, parts)
        if self.synthetic_prior:
            deepest = max((c.depth for c, p in zip(candidates, parts, strict=True) if explained(p)), default=0)
            old = [outcomposed(p, c.depth, deepest) for c, p in zip(candidates, parts, strict=True)]
            if any(n and not o and p.get("memory") for n, o, p in zip(new, old, parts, strict=True)):
                log("outcomposed by fewer left out", self)
        return new

    PathScorer._outcomposed = watched
