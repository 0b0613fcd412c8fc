"""The rule this folder's detection runs watched (`bench/devkgs/detect/`, with
`KGQA_DETECT_RULES` naming this file): "wh in place", each question whose closing verb
(`candidates.closing_verb`) differs from 8b0e04b's, which read none where a wh-word ends the
question ("units derived from X *measure* what")."""

from agent.pog import candidates, scoring


def install(log) -> None:
    init = scoring.PathScorer.__init__

    def logged_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        words = self.words
        at_8b0e04b = None
        if not self.asked_at and not (words and words[-1] in candidates._WH_AUX):
            at_8b0e04b = candidates.closing_verb(words, self.link_at)
        if at_8b0e04b != self.closing_verb_at:
            log("wh in place", self)

    scoring.PathScorer.__init__ = logged_init
