"""Which questions a ranking rule can change: imported by every Python process started
with this folder first on PYTHONPATH, `KGQA_DETECT` naming a log file and
`KGQA_DETECT_RULES` a Python file whose `install(log)` wraps the rules to watch (each
change's results folder keeps its own, e.g. `results/2026-11-30/links-and-chains/rules.py`).
`log(rule, scorer)` appends the scorer's masked question with the rule's name.

- The model's replies come from the reply cache; a miss gets an empty reply at once (not
  stored), so a run over every question takes minutes, and reads the question's analysis
  as the real runs did (that reply does not depend on the rules).
- An empty reply sends a question on to every later phase, so the run should rank at
  least the candidates the real run ranked, and the log list a superset of the questions
  the rules change (a reading of how the phases chain, not a proof).

`affected.py` beside this turns a log into question ids; `exact.py` counts a run's rows
whose every reply came from the cache (the others took the empty-reply route)."""

import json
import os
import runpy

if os.environ.get("KGQA_DETECT"):
    from agent.llm import cache
    from agent.llm.base import LLMReply
    from agent.pog.scoring import PathScorer

    log_path = os.environ["KGQA_DETECT"]

    def log(rule: str, scorer: PathScorer) -> None:
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

    cache.CachedLLM._chat = cached_only
    runpy.run_path(os.environ["KGQA_DETECT_RULES"])["install"](log)
