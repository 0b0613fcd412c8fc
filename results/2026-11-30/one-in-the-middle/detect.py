"""detect.py RESULTS_DIR...: the questions `PathScorer.many_where_one` can change, as JSON
(`bench/devkgs/detect/words.py`; run with `PYTHONPATH=bench/devkgs/detect:.`).

No detection run is needed: the rule does nothing unless `candidates.says_one` holds, and
that reads only the question's words (what is asked, the topic's own phrase), so the list
is a superset of the questions whose scores change."""

import json
import sys
from pathlib import Path

from words import listed

from agent.pog.candidates import asked_words, question_tokens, says_one, topic_phrase_words
from agent.pog.memory import MASK


def may_say_one(masked: str) -> bool:
    tokens = question_tokens(masked)
    words = [t.lower() for t in tokens]
    masks = [i for i, t in enumerate(tokens) if t == MASK]
    phrase = topic_phrase_words(words, masks[0]) if len(masks) == 1 else frozenset()
    asked = set(asked_words(masked))
    return says_one(words, frozenset(i for i, w in enumerate(words) if w in asked) - phrase, phrase)


json.dump(listed(map(Path, sys.argv[1:]), may_say_one), sys.stdout, indent=1)
