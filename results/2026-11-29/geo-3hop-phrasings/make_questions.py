"""Geo 3-hop chains in new phrasings, drafted 2026-11-29 before any run (a development
check, not a held-out set). Run from the repository root; writes questions_3hop.txt beside
this file."""

import random
import sys
from pathlib import Path

sys.path.insert(0, "bench/devkgs")
import build

PHRASINGS = {
    "city-country-borders-capital": ("what are the capitals of the countries bordering the nation {X} belongs to",
                                     "{X} lies in a country whose neighbours have which capital cities"),
    "city-country-capital-population": ("how many people live in the capital of the country {X} is in",
                                        "the capital of the country that {X} belongs to has how many inhabitants"),
    "capital-country-borders-currency": (("which currencies are used in the countries next to the country whose "
                                          "capital is {X}"),
                                         ("{X} is the capital of a country; what money do its neighbouring countries "
                                          "use")),
    "city-country-capital-timezone": ("in which time zone is the capital of the country where {X} lies",
                                      "what time zone does the capital city of {X} 's nation use"),
    "country-borders-capital-timezone": ("which time zones are the capitals of {X} 's bordering countries in",
                                         "the countries that border {X} have capitals in which time zones"),
}

asked = build.rephrased(build.GEO_3HOP, PHRASINGS)
lines = build.chain_questions(build.geo_kg(), asked, random.Random("geo-3hop-dev"))
build.write_set(Path(__file__).parent, "3hop", lines)
