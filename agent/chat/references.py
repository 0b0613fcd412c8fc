"""Follow-up questions in a conversation: "and where was he born?" names nobody, so the
reference is resolved to an entity of the previous turn before PoG runs, and that
entity is given to PoG as the topic (by id: no linking guesswork).

Rules, not the model: the embedded 0.5B model rewrites questions unreliably, while the
previous turn already tells us who the candidates are.
- he / she / him / his (a person): the previous answer when that turn asked "who" and
  had one answer; otherwise the previous topic entity.
- it / its / this film (a thing): the previous answer when that turn did not ask "who"
  and had one answer; otherwise the previous topic entity.
- they / them / those (several): the previous answers, as "the answers to <previous
  question>" over the previous topic entities, so PoG walks one hop further.
- "and Splash?" / "what about Splash?": the previous question again with Splash in
  place of its topic entity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from kg_store.model import is_value_node

Kind = Literal["person", "thing", "plural"]
Turn = dict[str, Any]

PERSON = r"he|she|him|his|hers|her"
THING = r"it|its|(?:this|that|the same)\s+(?:film|movie|book|one|song|album|place|country|city|team)"
PLURAL = r"they|them|their|those|these"
REFERENCE = re.compile(rf"\b(?P<person>{PERSON})\b|\b(?P<thing>{THING})\b|\b(?P<plural>{PLURAL})\b", re.IGNORECASE)
ELLIPSIS = re.compile(r"^\s*(?:and|what about|how about)\s+(?P<mention>[^?]+?)\s*\??\s*$", re.IGNORECASE)
POSSESSIVE = {"his", "hers", "its", "their"}
# "her" is possessive before a noun ("her films") and an object otherwise ("who married her").
OBJECT_FOLLOWERS = {"", "in", "on", "at", "to", "and", "or", "with", "for", "from", "by", "as"}
ELLIPSIS_MAX_WORDS = 6
LEADING_AND = re.compile(r"^\s*(?:and|so)\s+", re.IGNORECASE)


@dataclass
class Resolution:
    question: str  # the question PoG is asked
    topics: list[dict[str, str]] = field(default_factory=list)  # given topic entities ({id, name}); [] = link
    referent: str | None = None  # what the reference was read as, for the user to see


def resolve_references(message: str, turns: list[Turn]) -> Resolution:
    message = message.strip()
    if not turns:
        return Resolution(message)
    last = turns[-1]
    ellipsis = ELLIPSIS.match(message)
    if ellipsis and len(ellipsis["mention"].split()) <= ELLIPSIS_MAX_WORDS and not REFERENCE.search(message):
        return _ellipsis(ellipsis["mention"], last) or Resolution(message)
    match = REFERENCE.search(message)
    if not match:
        return Resolution(message)
    kind: Kind = next(k for k in ("person", "thing", "plural") if match[k])  # type: ignore[assignment]
    topics = last.get("topics") or []
    # A literal answer (a date, a number) is no entity a later question can start from.
    answers = [a for a in last.get("answer_entities") or [] if not is_value_node(a["id"])]
    if kind == "plural" and len(answers) > 1 and topics:
        phrase = f"the answers to “{last['resolved']}”"
        return Resolution(_replace(message, match, phrase, possessive=False), list(topics), phrase)
    asked_who = last["resolved"].lower().startswith("who")
    wants_answer = (kind == "person") == asked_who
    if len(answers) == 1 and (wants_answer or not topics):
        entity = answers[0]
    elif topics:
        entity = topics[0]
    elif answers:
        entity = answers[0]
    else:
        return Resolution(message)
    word = match.group(0).lower()
    possessive = word in POSSESSIVE or (word == "her" and _next_word(message, match.end()) not in OBJECT_FOLLOWERS)
    return Resolution(_replace(message, match, entity["name"], possessive=possessive), [dict(entity)], entity["name"])


def _ellipsis(mention: str, last: Turn) -> Resolution | None:
    topics = last.get("topics") or []
    previous = last["resolved"]
    if not topics or topics[0]["name"].lower() not in previous.lower():
        return None
    start = previous.lower().index(topics[0]["name"].lower())
    question = previous[:start] + mention + previous[start + len(topics[0]["name"]):]
    return Resolution(question, [], mention)  # the new entity is linked by name, like any question's


def _replace(message: str, match: re.Match[str], name: str, *, possessive: bool) -> str:
    question = message[: match.start()] + name + ("'s" if possessive else "") + message[match.end():]
    return LEADING_AND.sub("", question)


def _next_word(text: str, position: int) -> str:
    following = re.match(r"\s*([A-Za-z]*)", text[position:])
    return following[1].lower() if following else ""
