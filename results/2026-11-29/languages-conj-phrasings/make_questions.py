"""Languages conjunctions in new phrasings, drafted 2026-11-29 before any run (a
development check, not a held-out set). Run from the repository root; writes
questions_conj.txt beside this file."""

import random
import sys
from pathlib import Path

sys.path.insert(0, "bench/devkgs")
import build

PHRASINGS = {
    "official-and-currency": ("in which countries is {X} an official language and {Y} the currency",
                              "name the nations that pay with {Y} and have {X} as an official language"),
    "official-in-both": ("which languages are official both in {X} and in {Y}",
                         "what official language do {X} and {Y} have in common"),
    "script-and-home": ("which languages written in {X} come from {Y}",
                        "name the languages native to {Y} that use {X}"),
}

asked = build.rephrased(build.LANGUAGES_CONJ, PHRASINGS)
lines = build.conjunction_questions(build.languages_kg(), asked, random.Random("languages-conj-dev"))
build.write_set(Path(__file__).parent, "conj", lines)
