"""Getting a pydantic object out of whatever a model wrote: JSON in prose, in code
fences, with single quotes, trailing commas or Python literals. Never raises."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _balanced_objects(text: str) -> list[str]:
    """Every top-level {...} span, outermost first, honouring strings."""
    spans, depth, start, in_string, escaped = [], 0, -1, False, False
    for i, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == in_string:
                in_string = False
            continue
        if char in "\"'" and depth:
            in_string = char
        elif char == "{":
            if depth == 0:
                start = i
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def _load_loose(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except ValueError:
        pass
    repaired = _TRAILING_COMMA.sub(r"\1", candidate)
    try:
        return json.loads(repaired)
    except ValueError:
        pass
    try:  # single quotes, True/False/None: a Python literal
        return ast.literal_eval(repaired)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def parse_reply(text: str, schema: type[BaseModel]) -> tuple[BaseModel | None, str | None]:
    """(object, None) or (None, why). Tries fenced blocks, then every {...} span."""
    candidates = [m.strip() for m in _FENCE.findall(text)] + _balanced_objects(text) + [text.strip()]
    last_error = "no JSON object in the reply"
    for candidate in candidates:
        data = _load_loose(candidate)
        if not isinstance(data, dict):
            continue
        try:
            return schema.model_validate(data), None
        except ValidationError as exc:
            last_error = f"JSON did not fit {schema.__name__}: {exc.errors()[0]['msg']}"
    return None, last_error
