"""detect.py RESULTS_DIR...: the questions whose own asked words the do-support reading of
`candidates.asked_words` changes, as JSON (`bench/devkgs/detect/words.py`; run with
`PYTHONPATH=bench/devkgs/detect:.`). The question side needs no detection run: its words
decide. The memory side (a written question of a synthesised memory read anew) does:
`rules.py` here."""

import json
import sys
from pathlib import Path

from rules import old_asked_words
from words import listed

from agent.pog.candidates import asked_words

json.dump(listed(map(Path, sys.argv[1:]), lambda masked: old_asked_words(masked) != asked_words(masked)),
          sys.stdout, indent=1)
