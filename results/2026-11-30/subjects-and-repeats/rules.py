"""The rules this folder's detection runs watched (`bench/devkgs/detect/`, with
`KGQA_DETECT_RULES` naming this file), each question where one reads otherwise than
dd3c375 did:
- "preposition's object": `candidates.topic_verb` reads no verb of the topic's after a topic
  that is a preposition's object ("units built on the X *measure* what");
- "asked names no first link": `PathScorer.first_relation` leaves the asked words and their
  generic head out ("what *kind* of quantity");
- "repeated link": a link word said twice or more (`candidates.repeated_link`)."""

from agent.pog import candidates, scoring


def install(log) -> None:
    init = scoring.PathScorer.__init__
    first_relation = scoring.PathScorer.first_relation

    def logged_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        words = self.words
        if self.topic_at is not None:
            after = self.topic_at + 1
            if (after < len(words) and words[after] != candidates.POSSESSIVE
                    and candidates.may_name_a_relation(words[after])
                    and candidates.object_of_preposition(words, self.topic_at)):
                log("preposition's object", self)
        if candidates.repeated_link(words, self.link_at):
            log("repeated link", self)

    def logged_first_relation(self, relations):
        relations = list(relations)
        now = first_relation(self, relations)
        if self.topic_at is not None:
            named = sorted(r for r in set(relations) if self.named(r))
            before = candidates.topic_relation(self.words, {r: self.naming_positions(r) for r in named}, self.topic_at)
            if before != now:
                log("asked names no first link", self)
        return now

    scoring.PathScorer.__init__ = logged_init
    scoring.PathScorer.first_relation = logged_first_relation
