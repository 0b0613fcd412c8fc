"""Languages 2-hop chains in new phrasings, drafted 2026-11-29 before any run (a development
check, not a held-out set). Run from the repository root; writes questions_2hop.txt beside
this file."""

import random
import sys
from pathlib import Path

sys.path.insert(0, "bench/devkgs")
import build

PHRASINGS = {
    "country-official-script": ("which script writes the official language of {X}",
                                "{X} 's official language is written in which script"),
    "language-home-currency": ("what currency is used where {X} is spoken natively",
                               "name the money of {X} 's home country"),
    "language-official-currency": ("which currency do the countries that have {X} as an official language use",
                                   "what money is spent in the nations where {X} is official"),
    "country-currency-units": ("how many minor units does the currency of {X} have",
                               "{X} 's currency is divided into how many minor units"),
    "script-languages-countries": ("which countries have an official language written in {X}",
                                   "name the nations whose official languages use {X}"),
    "language-home-zone": ("what time zone is {X} 's home country in",
                           "in which time zones is the country of {X} located"),
    "country-official-direction": ("in which direction is the official language of {X} written",
                                   "what is the writing direction of {X} 's official language"),
}

asked = build.rephrased(build.LANGUAGES_2HOP, PHRASINGS)
lines = build.chain_questions(build.languages_kg(), asked, random.Random("languages-2hop-dev"))
build.write_set(Path(__file__).parent, "2hop", lines)
