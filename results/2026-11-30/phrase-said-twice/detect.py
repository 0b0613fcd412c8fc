"""detect.py RESULTS_DIR...: the questions `candidates.repeated_phrase` can change, as JSON
(`bench/devkgs/detect/words.py`; run with `PYTHONPATH=bench/devkgs/detect:.`).

No detection run is needed for this rule: it reads only the question's words. It counts
where `PathScorer.link_at` can hold a phrase said twice: one topic, no sibling cue, link
words (`candidates.link_words`) among those that may name a relation. The scorer's own
link words are a subset of these (it leaves out the asked words and the words naming a
candidate's relation), so the list is a superset of the questions whose scores change."""

import json
import sys
from pathlib import Path

from words import listed

from agent.pog.candidates import asks_for_siblings, link_words, may_name_a_relation, question_tokens, repeated_phrase
from agent.pog.memory import MASK


def may_repeat_a_phrase(masked: str) -> bool:
    tokens = question_tokens(masked)
    masks = [i for i, t in enumerate(tokens) if t == MASK]
    if len(masks) != 1 or asks_for_siblings(masked):
        return False
    words = [t.lower() for t in tokens]
    return bool(repeated_phrase(words, link_words(words, [i for i, w in enumerate(words)
                                                          if i not in masks and may_name_a_relation(w)])))


json.dump(listed(map(Path, sys.argv[1:]), may_repeat_a_phrase), sys.stdout, indent=1)
