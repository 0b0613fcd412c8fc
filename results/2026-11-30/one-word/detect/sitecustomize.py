"""Which questions a rule can change: imported by every Python process started with this
folder first on PYTHONPATH and KGQA_DETECT set to a log file. The rules: this folder's
`one_word` and `kind_asked_by_fit` (in the code only with `kind-by-fit.patch` applied), and
`PathScorer.against_participles` (`results/2026-11-30/participles/`).

- The model's replies come from the reply cache; a miss gets an empty reply at once (not
  stored), so a run over every question takes minutes, and reads the question's analysis
  as the real runs did (that reply does not depend on the rules).
- Each time `PathScorer.kind_asked_by_fit` names a last step, it logs the masked question
  ("fit"); each time `PathScorer.named_twice` reads two words as one where the roots of
  `word_root` alone differ, it logs it ("e"); each time `against_participles` counts a step
  against a participle ("participle").

An empty reply sends a question on to every later phase, so the run should rank at least
the candidates the real run ranked, and the log list a superset of the questions the rules
change (a reading of how the phases chain, not a proof)."""

import json
import os

if os.environ.get("KGQA_DETECT"):
    from agent.llm import cache
    from agent.llm.base import LLMReply
    from agent.pog import scoring
    from agent.pog.candidates import word_root

    log_path = os.environ["KGQA_DETECT"]

    def log(rule: str, scorer: scoring.PathScorer) -> None:
        with open(log_path, "a") as out:
            out.write(json.dumps({"rule": rule, "q": " ".join(scorer.words)}) + "\n")

    cached_chat = cache.CachedLLM._chat

    def cached_only(self, messages, **request):
        key = self._key(messages, **dict(request))  # `_key` pops the schema
        with self._db_lock:
            stored = self._db.execute("SELECT 1 FROM replies WHERE key = ?", (key,)).fetchone()
        if stored is None:
            return LLMReply(text="", prompt_tokens=0, completion_tokens=0, seconds=0.0, cached=False)
        return cached_chat(self, messages, **request)  # a hit: the cache's own reading of it

    kind_asked_by_fit = getattr(scoring.PathScorer, "kind_asked_by_fit", None)
    against_participles = getattr(scoring.PathScorer, "against_participles", None)
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

    cache.CachedLLM._chat = cached_only
    if kind_asked_by_fit is not None:
        scoring.PathScorer.kind_asked_by_fit = logged_kind_asked_by_fit
    if against_participles is not None:
        scoring.PathScorer.against_participles = logged_against_participles
    scoring.PathScorer.named_twice = logged_named_twice
