"""detect.py RESULTS_DIR...: the questions whose closing verb `PathScorer.nearest_relation`
reads, as JSON (`bench/devkgs/detect/words.py`; run with `PYTHONPATH=bench/devkgs/detect:.`).

No detection run is needed: the rule reads a question's closing verb (`closing_verb_at`,
from its own words), and where it has none nothing changes; so listing every question
with one gives a superset of the questions whose scores change."""

import json
import sys
from pathlib import Path

from words import listed

from agent.embeddings import Embedder
from agent.pog.config import ScoreWeights
from agent.pog.scoring import PathScorer

embedder = Embedder()

json.dump(listed(map(Path, sys.argv[1:]),
                 lambda masked: PathScorer(embedder, ScoreWeights(fit=0.0), masked, None, [], None).closing_verb_at
                 is not None),
          sys.stdout, indent=1)
