"""Which questions the two rules of this folder can change, by their text alone; every other
question is scored as at 6928328, so its committed result row stands.

- The article rule changes `candidates.topic_verb`, which the score reads only where the
  question has no owner nouns (`PathScorer.against_word_order`).
- The chain-word rule changes `PathScorer.named_twice` only for the same word standing
  twice, apart, outside the words that say what is asked.

    python results/2026-11-30/tuning-units/affected.py > affected.json   # {question file: [ids]}
"""

import glob
import json
from pathlib import Path

from agent.pog import candidates as C
from agent.pog.memory import MASK, mask_question
from loaders.questions import read_questions


def topic_verb_before(words: list[str], topic_at: int) -> tuple[int, bool] | None:
    """`candidates.topic_verb` as it was at 6928328 (no article test)."""
    after = topic_at + 1
    if after < len(words) and words[after] != C.POSSESSIVE and C.may_name_a_relation(words[after]):
        return after, True
    if topic_at >= 2 and words[topic_at - 1] == "by":
        return topic_at - 2, True
    before = C.before_article(words, topic_at)
    if before >= 1 and words[before] in C._VERB_PARTICLES:
        before -= 1
    if before >= 0 and C.may_name_a_relation(words[before]):
        return before, False
    return None


def affected(text: str, topics: list[str]) -> bool:
    masked = mask_question(text, topics)
    tokens = C.question_tokens(masked)
    words = [t.lower() for t in tokens]
    masks = [i for i, t in enumerate(tokens) if t == MASK]
    if len(masks) == 1 and not C.owner_nouns(words, masks[0]) \
            and topic_verb_before(words, masks[0]) != C.topic_verb(words, masks[0]):
        return True
    asked = set(C.asked_words(masked))
    at = [i for i, w in enumerate(words) if C.may_name_a_relation(w) and w not in asked and i not in masks]
    return any(words[i] == words[j] and j - i > 1 for k, i in enumerate(at) for j in at[k + 1:])


if __name__ == "__main__":
    sets = [(p, "metaqa") for p in glob.glob("bench/devkgs/*/questions_*.txt")]
    sets += [(p, "metaqa") for p in glob.glob("../shared/data/metaqa/qa_dev_*hop.txt")]
    sets += [(p, "pog") for p in glob.glob("../shared/data/freebase/questions/*_dev.json")]
    found = {}
    for path, fmt in sets:
        ids = [q.id for q in read_questions(Path(path), fmt).questions
               if affected(q.text, [t.name or t.id for t in q.topic_entities])]
        if ids:
            found[str(Path(path).resolve())] = ids
    print(json.dumps(found, indent=1))
