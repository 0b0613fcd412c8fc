"""Elements 3-hop chains in new phrasings, drafted 2026-11-29 before any run (a development
check, not a held-out set). Run from the repository root; writes questions_3hop.txt beside
this file."""

import random
import sys
from pathlib import Path

sys.path.insert(0, "bench/devkgs")
import build

PHRASINGS = {
    "element-discoverer-symbols": ("what are the symbols of the elements discovered by whoever discovered {X}",
                                   "{X} 's discoverer also found elements with which symbols"),
    "symbol-discoverer-places": ("the person who discovered the element with symbol {X} discovered which elements",
                                 "which elements share a discoverer with the element whose symbol is {X}"),
    "number-discoverer-years": ("which elements were found by the discoverer of element number {X}",
                                ("the element with atomic number {X} was discovered by someone who also "
                                 "discovered which elements")),
    "person-place-series": ("which elements were discovered in the countries where {X} discovered an element",
                            "{X} found elements in some places; what elements were found there"),
    "symbol-discoverer-years": ("what elements did the discoverer of the element with symbol {X} discover",
                                "name the elements discovered by the person behind the element with symbol {X}"),
}

asked = build.rephrased(build.ELEMENTS_3HOP, PHRASINGS)
lines = build.chain_questions(build.elements_kg(), asked, random.Random("elements-3hop-dev"))
build.write_set(Path(__file__).parent, "3hop", lines)
