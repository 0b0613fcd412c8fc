"""detect.py RESULTS_DIR...: the questions `candidates.repeated_phrase` can change, as JSON
({"<dir>/<results file>": [ids]}), read from a full run's rows (`*-pog-nomem.jsonl`, every
development set, one part a directory) and their traces' masked questions.

No detection run is needed for this rule: it reads only the question's words. It counts
where `PathScorer.link_at` can hold a phrase said twice: one topic, no sibling cue, link
words (`candidates.link_words`) among those that may name a relation. The scorer's own
link words are a subset of these (it leaves out the asked words and the words naming a
candidate's relation), so the list is a superset of the questions whose scores change."""

import json
import sys
from pathlib import Path

from agent.pog.candidates import asks_for_siblings, link_words, may_name_a_relation, question_tokens, repeated_phrase
from agent.pog.memory import MASK

found: dict[str, list[str]] = {}
for folder in map(Path, sys.argv[1:]):
    for path in sorted(folder.glob("*-pog-nomem.jsonl")):
        for line in path.open():
            row = json.loads(line)
            with open(row["trace"]) as trace:
                masked = json.load(trace)["agent"]["events"][0]["update"]["masked_question"]
            tokens = question_tokens(masked)
            masks = [i for i, t in enumerate(tokens) if t == MASK]
            if len(masks) != 1 or asks_for_siblings(masked):
                continue
            words = [t.lower() for t in tokens]
            if repeated_phrase(words, link_words(words, [i for i, w in enumerate(words)
                                                         if i not in masks and may_name_a_relation(w)])):
                found.setdefault(f"{folder.name}/{path.name}", []).append(row["id"])
json.dump(found, sys.stdout, indent=1)
