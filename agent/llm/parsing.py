"""Getting a pydantic object out of whatever a model wrote: JSON in prose, in code
fences, with single quotes, trailing commas, Python literals, or cut off before its end
(the token limit). `json-repair` does the repairing; this module only picks the object
that fits. Never raises."""

from __future__ import annotations

import re
from typing import Any

import json_repair
from pydantic import BaseModel, ValidationError

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def _objects(candidate: str) -> list[dict[str, Any]]:
    """The JSON objects in `candidate` as json-repair reads it (several in a row come
    back as a list)."""
    try:
        data = json_repair.loads(candidate)
    except (ValueError, TypeError, RecursionError):  # it repairs rather than raise, but a reply is untrusted
        return []
    return [item for item in (data if isinstance(data, list) else [data]) if isinstance(item, dict) and item]


def parse_reply(text: str, schema: type[BaseModel]) -> tuple[BaseModel | None, str | None]:
    """(object, None) or (None, why). Each fenced block, then the whole reply; the first
    object that fits `schema` wins."""
    last_error = "no JSON object in the reply"
    for candidate in [*(m.strip() for m in _FENCE.findall(text)), text.strip()]:
        for data in _objects(candidate):
            try:
                return schema.model_validate(data), None
            except ValidationError as exc:
                last_error = f"JSON did not fit {schema.__name__}: {exc.errors()[0]['msg']}"
    return None, last_error
