"""detect.py RESULTS_DIR...: the questions `PathScorer.asked_links` can change, as JSON
(`bench/devkgs/detect/words.py`; run with `PYTHONPATH=bench/devkgs/detect:.`).

No detection run is needed: an asked link is a word saying what is asked that is a
relational noun by its place ("the *neighbours* of"), and whether it names a candidate's
relation only narrows that; so listing every question with such a word, from its own
words, gives a superset of the questions whose scores change."""

import json
import sys
from pathlib import Path

from words import listed

from agent.embeddings import Embedder
from agent.pog.candidates import IMPERATIVES, may_name_a_relation
from agent.pog.config import ScoreWeights
from agent.pog.scoring import PathScorer

embedder = Embedder()


def may_ask_a_link(masked: str) -> bool:
    scorer = PathScorer(embedder, ScoreWeights(fit=0.0), masked, None, [], None)
    return any(scorer.words[i] not in IMPERATIVES and may_name_a_relation(scorer.words[i]) and scorer._relational(i)
               for i in scorer.asked_at)


json.dump(listed(map(Path, sys.argv[1:]), may_ask_a_link), sys.stdout, indent=1)
