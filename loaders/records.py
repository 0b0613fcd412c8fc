"""What parsers yield, line by line: facts, names, literal attributes, or a malformed line."""

from __future__ import annotations

from dataclasses import dataclass

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


class MalformedInput(ValueError):
    """Raised in strict mode at the first malformed line, and for unreadable files."""

    def __init__(self, path: str, line_no: int, reason: str) -> None:
        super().__init__(f"{path}:{line_no}: {reason}")
        self.path, self.line_no, self.reason = path, line_no, reason
