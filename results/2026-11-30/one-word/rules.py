"""The rules this folder's detection runs watched (`bench/devkgs/detect/`, with
`KGQA_DETECT_RULES` naming this file): `one_word` and `kind_asked_by_fit` (in the code
only with `kind-by-fit.patch` applied), and `PathScorer.against_participles`
(`results/2026-11-30/participles/`).

- Each time `PathScorer.kind_asked_by_fit` names a last step, it logs the masked question
  ("fit");
- each time `PathScorer.named_twice` reads two words as one where the roots of `word_root`
  alone differ, "e";
- each time `against_participles` counts a step against a participle, "participle"."""

from agent.pog import scoring
from agent.pog.candidates import word_root


def install(log) -> None:
    kind_asked_by_fit = getattr(scoring.PathScorer, "kind_asked_by_fit", None)
    against_participles = scoring.PathScorer.against_participles
    named_twice = scoring.PathScorer.named_twice
    one_word = scoring.one_word

    def logged_kind_asked_by_fit(self, *args):
        found = kind_asked_by_fit(self, *args)
        if any(found[0]):
            log("fit", self)
        return found

    def logged_against_participles(self, *args):
        found = against_participles(self, *args)
        if found:
            log("participle", self)
        return found

    def logged_named_twice(self, relation, chained):
        now = named_twice(self, relation, chained)
        scoring.one_word = lambda a, b: word_root(a) == word_root(b)
        try:
            before = named_twice(self, relation, chained)
        finally:
            scoring.one_word = one_word
        if now != before:
            log("e", self)
        return now

    if kind_asked_by_fit is not None:
        scoring.PathScorer.kind_asked_by_fit = logged_kind_asked_by_fit
    scoring.PathScorer.against_participles = logged_against_participles
    scoring.PathScorer.named_twice = logged_named_twice
