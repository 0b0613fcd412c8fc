"""The rule this folder's detection runs watched (`bench/devkgs/detect/`, with
`KGQA_DETECT_RULES` naming this file): "bare subject", each question whose link words
(`candidates.link_words`) differ from ad7b14b's, where the bare subject of "do" ("what do
*people* pay with in X", `candidates.bare_subject_of_do`) was a link word."""

from agent.pog import candidates, scoring


def install(log) -> None:
    init = scoring.PathScorer.__init__

    def logged_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self.topic_at is None:
            return
        rule = candidates.bare_subject_of_do
        candidates.bare_subject_of_do = lambda words, i: False
        try:
            at_ad7b14b = candidates.link_words(self.words, (i for i in self._may_name if i not in self._masks
                                                            and i not in self.asked_at))
        finally:
            candidates.bare_subject_of_do = rule
        if sorted(at_ad7b14b) != sorted(self.link_at):
            log("bare subject", self)

    scoring.PathScorer.__init__ = logged_init
