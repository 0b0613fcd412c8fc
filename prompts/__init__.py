"""Prompt templates, one Markdown file each, with `$name` slots (string.Template: the
JSON braces in few-shot examples need no escaping)."""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template


@cache
def _template(name: str) -> Template:
    return Template(resources.files("prompts").joinpath(f"{name}.md").read_text(encoding="utf-8"))


def render(name: str, **slots: object) -> str:
    """The prompt `name` with every slot filled; a missing slot is an error, not a blank."""
    return _template(name).substitute({k: str(v) for k, v in slots.items()})
