"""A small film KG for the PoG tests, and a scripted model that answers by prompt kind.

Shapes on purpose: several answers per relation (entity sets), a second topic entity
that narrows the answer (multi-entity questions), Freebase-style CVT nodes without
names, a hub with more neighbours than the agent reads, and an entity with no edges.
"""

from __future__ import annotations

from collections.abc import Callable

from agent.llm import FakeLLM
from agent.llm.base import Message
from kg_store import LoadBatch, Triple
from kg_store.memory import MemoryStore

HUB_FILMS = 150  # films in the "Comedy" hub: more than any test reads per entity

FILMS = {
    # film: (director, actors, year, genre)
    "Big": ("Penny Marshall", ["Tom Hanks", "Elizabeth Perkins"], "1988", "Comedy"),
    "Splash": ("Ron Howard", ["Tom Hanks", "Daryl Hannah"], "1984", "Comedy"),
    "Apollo 13": ("Ron Howard", ["Tom Hanks", "Kevin Bacon"], "1995", "Drama"),
    "Footloose": ("Herbert Ross", ["Kevin Bacon"], "1984", "Drama"),
    "Awakenings": ("Penny Marshall", ["Robin Williams"], "1990", "Drama"),
    "Cocoon": ("Ron Howard", ["Don Ameche"], "1985", "Drama"),
}


def store_of(facts: list[tuple[str, str, str]]) -> MemoryStore:
    """A store of these (head, relation, tail) facts, each entity named by its id."""
    store = MemoryStore()
    named = sorted({entity for fact in facts for entity in (fact[0], fact[2])})
    store.write(LoadBatch(triples=[Triple(*fact) for fact in facts], names=[(e, e) for e in named]))
    return store


def film_triples() -> list[Triple]:
    triples = []
    for film, (director, actors, year, genre) in FILMS.items():
        triples += [Triple(film, "directed_by", director), Triple(film, "release_year", year),
                    Triple(film, "has_genre", genre)]
        triples += [Triple(film, "starred_actors", actor) for actor in actors]
    triples += [Triple(f"Comedy Film {i}", "has_genre", "Comedy") for i in range(HUB_FILMS)]
    return triples


# Freebase-style: a performance CVT joins actor and film (and the character played).
CVT_TRIPLES = [
    Triple("m.hanks", "film.actor.film", "m.cvt1"),
    Triple("m.cvt1", "film.performance.film", "m.gump"),
    Triple("m.cvt1", "film.performance.character", "m.forrest"),
    Triple("m.hanks", "film.actor.film", "m.cvt2"),
    Triple("m.cvt2", "film.performance.film", "m.castaway"),
    Triple("m.gump", "film.film.directed_by", "m.zemeckis"),
    Triple("m.castaway", "film.film.directed_by", "m.zemeckis"),
]
CVT_NAMES = [("m.hanks", "Tom Hanks (fb)"), ("m.gump", "Forrest Gump"), ("m.forrest", "Forrest"),
             ("m.castaway", "Cast Away"), ("m.zemeckis", "Robert Zemeckis")]


def film_batch() -> LoadBatch:
    triples = film_triples() + CVT_TRIPLES
    named = {x for t in film_triples() for x in (t.head, t.tail)} | {"Lonely Entity"}
    return LoadBatch(triples=triples, names=[(e, e) for e in sorted(named)] + CVT_NAMES)


def film_store() -> MemoryStore:
    store = MemoryStore()
    store.write(film_batch())
    return store


PROMPT_KINDS = {
    "analyse": "Analyse the question for a search",
    "answer": "Using these paths, answer the question",
    "judged": "First decide whether these paths are enough",
    "select": "Which of these knowledge-graph paths help",
    "fi_filter": "Which of these numbered reasoning paths",
    "branch": "start in these ways",
    "predict": "from your own knowledge with up to three likely answers",
    "supplement": "give three likely answers, then for each a short chain",
    "knowledge": "Answer the question from these paths and from your own knowledge",
    "summarise": "Summarise what these paths say",
    "io": "Answer the question with the names of the answer entities only",
    "triples": "Using these facts, answer the question",
}
Reply = str | Callable[[str], str]


def prompt_kind(prompt: str) -> str:
    return next(kind for kind, marker in PROMPT_KINDS.items() if marker in prompt)


def scripted(**replies: Reply) -> FakeLLM:
    """A fake model that replies by prompt kind (`analyse=..., answer=...`); a kind with
    no reply gets garbage, which every node must survive."""

    def reply(messages: list[Message]) -> str:
        prompt = messages[-1]["content"]
        if "That reply was not valid JSON" in prompt:  # the client's repair request
            prompt = messages[0]["content"]
        chosen = replies.get(prompt_kind(prompt), "}{ garbage ]]")
        return chosen(prompt) if callable(chosen) else chosen

    return FakeLLM(reply)


def kinds_asked(llm: FakeLLM) -> list[str]:
    return [prompt_kind(call[-1]["content"] if "not valid JSON" not in call[-1]["content"] else call[0]["content"])
            for call in llm.calls]


def analysis(depth: int | None, indicator: str = "", topics: tuple[str, ...] = ()) -> str:
    import json

    return json.dumps({"topic_entities": list(topics), "split_questions": [], "indicator": indicator, "depth": depth})
