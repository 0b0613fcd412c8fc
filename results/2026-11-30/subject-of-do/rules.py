"""Detection for the do-support reading of `candidates.asked_words`, memory side: each
question where a synthesised memory's `_asks_for_another_kind` gives another answer with
the written questions' asked words read the old way (the noun phrase after "what does the"
taken as asked). The question side needs no run (its own words decide)."""

import functools
from types import SimpleNamespace

from agent.pog import candidates, memory
from agent.pog.candidates import question_tokens


def old_asked_words(question: str) -> list[str]:
    words = [w.lower() for w in question_tokens(question)]
    at = next((i for i, w in enumerate(words) if w in candidates._WH_AUX), None)
    if at is not None and at + 2 < len(words):
        rest = words[at + 1:]
        if rest[0] in candidates._AUX and rest[0] not in candidates._COPULAS and rest[1] in candidates._DETERMINERS:
            return candidates._after_generic_head(candidates._noun_phrase(rest[2:]), rest)
    return candidates.asked_words(question)


def install(log) -> None:
    another_kind = memory.PathMemory._asks_for_another_kind

    @functools.wraps(another_kind)
    def watched(self, question, chains):
        new = another_kind(self, question, chains)
        if not hasattr(self, "_old_asks_for"):
            old: dict = {}
            for text, chain_sets in zip(self.texts, self.answered, strict=True):
                for chain in {c for cs in chain_sets for c in cs}:
                    old[chain] = old.get(chain, frozenset()) | frozenset(old_asked_words(text))
            self._old_asks_for = old
        kept, self.asks_for = self.asks_for, self._old_asks_for
        try:
            before = another_kind(self, question, chains)
        finally:
            self.asks_for = kept
        if before != new:
            log("asked words after do", SimpleNamespace(words=[t.lower() for t in question_tokens(question)]))
        return new

    memory.PathMemory._asks_for_another_kind = watched
