"""What parsers yield, line by line: facts, names, literal attributes, or a malformed line."""

from __future__ import annotations

from dataclasses import dataclass

from kg_store.errors import InputError
from kg_store.ids import MAX_ID_CHARS, has_control_character
from kg_store.model import Attribute, Triple


@dataclass(frozen=True, slots=True)
class Name:
    entity: str
    name: str


@dataclass(frozen=True, slots=True)
class Malformed:
    line_no: int
    reason: str


@dataclass(frozen=True, slots=True)
class Skipped:
    """A well-formed record left out on purpose (schema relation, non-English name, ...)."""

    reason: str


Record = Triple | Name | Attribute | Malformed | Skipped


class MalformedInput(InputError):
    """Raised in strict mode at the first malformed line, and for unreadable files."""

    def __init__(self, path: str, line_no: int, reason: str) -> None:
        super().__init__(f"{path}:{line_no}: {reason}")
        self.path, self.line_no, self.reason = path, line_no, reason


def id_problem(*values: str) -> str | None:
    """Why one of these ids cannot be stored (too long, a control character), checked per
    line so that a bad line is counted and skipped, never fatal to the batch around it.
    The rules of `check_id`, without its raise: this runs for every id of a load."""
    for value in values:
        if not value:
            return "an empty id"
        if len(value) > MAX_ID_CHARS:
            return f"an id of {len(value):,} characters (at most {MAX_ID_CHARS:,}): {value[:40]!r}…"
        if has_control_character(value):
            return f"a control character in the id {value[:60]!r}"
    return None
