"""The rules this folder's detection runs watched (`bench/devkgs/detect/`, with
`KGQA_DETECT_RULES` naming this file), each question where one says otherwise than at the
commit before:
- "equated phrase": `PathScorer.ends_mid_chain`, where `candidates.equated_with_asked`
  holds ("X 's *capital* is which city": the topic's phrase names the answer);
- "owned spare": a path's `unnamed` count, where a spare word follows "whose" after the
  asked words (`candidates.owned_by_asked`: "the people whose *packages* ...");
- "verb left out": a path's `missing` count, against the count without a closing verb (a
  path no longer than the other words' mentions leaves it out: "where were the elements
  *discovered* by X *found*");
- "closing verb": `PathScorer.closing_verb_at` where it differs from b348be8's reading,
  which took a noun after a participle for the closing verb ("X acted *films*")."""

from agent.pog import scoring
from agent.pog.candidates import _ARTICLES, POSSESSIVE_DETERMINERS


def install(log) -> None:
    ends_mid_chain = scoring.PathScorer.ends_mid_chain
    score = scoring.PathScorer.score
    owned_by_asked = scoring.owned_by_asked

    def logged_ends_mid_chain(self, steps):
        now = ends_mid_chain(self, steps)
        if self.phrase_is_asked:
            self.phrase_is_asked = False
            try:
                before = ends_mid_chain(self, steps)
            finally:
                self.phrase_is_asked = True
            if before != now:
                log("equated phrase", self)
        return now

    def logged_score(self, items, *args, **kwargs):
        now = score(self, items, *args, **kwargs)
        scoring.owned_by_asked = lambda *a: False
        try:
            without_owner = score(self, items, *args, **kwargs)
        finally:
            scoring.owned_by_asked = owned_by_asked
        if [p["unnamed"] for p in without_owner] != [p["unnamed"] for p in now]:
            log("owned spare", self)
        if self.closing_verb_at is not None:
            verb, self.closing_verb_at = self.closing_verb_at, None
            try:
                without_verb = score(self, items, *args, **kwargs)
            finally:
                self.closing_verb_at = verb
            if [p["missing"] for p in without_verb] != [p["missing"] for p in now]:
                log("verb left out", self)
        return now

    init = scoring.PathScorer.__init__

    def logged_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        last = len(self.words) - 1
        at_b348be8 = None if (last < 1 or last not in self.link_at
                              or self.words[last - 1] in _ARTICLES | POSSESSIVE_DETERMINERS
                              or self.asked_at) else last
        if at_b348be8 != self.closing_verb_at:
            log("closing verb", self)

    scoring.PathScorer.__init__ = logged_init
    scoring.PathScorer.ends_mid_chain = logged_ends_mid_chain
    scoring.PathScorer.score = logged_score
