"""Prompt templates, one Markdown file each, with `$name` slots (string.Template: the
JSON braces in few-shot examples need no escaping)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from importlib import resources
from string import Template


@cache
def _template(name: str) -> Template:
    return Template(resources.files("prompts").joinpath(f"{name}.md").read_text(encoding="utf-8"))


def head(name: str) -> str:
    """The fixed start of prompt `name`, before its first slot: what every prompt made from
    it begins with."""
    text = _template(name).template
    first = Template.pattern.search(text)
    return text[: first.start()] if first else text


def render(name: str, **slots: object) -> str:
    """The prompt `name` with every slot filled; a missing slot is an error, not a blank."""
    return _template(name).substitute({k: str(v) for k, v in slots.items()})


_TURN = re.compile(r"^## (system|user|assistant)\s*$", re.MULTILINE)


def render_chat(name: str, **slots: object) -> list[dict[str, str]]:
    """A prompt written as turns (`## system`, `## user`, `## assistant` headings) as chat
    messages, slots filled: few-shot examples as real turns, which a small model follows
    far better than examples inside one message (it copies those)."""
    parts = _TURN.split(render(name, **slots))
    return [{"role": role, "content": text.strip()} for role, text in zip(parts[1::2], parts[2::2], strict=True)]


# Characters of listed paths per prompt: with the instructions a prompt stays well inside
# the local model's 4,096-token context (40 three-hop paths with their names do not).
LISTING_CHARS = 7_000


def batches(lengths: list[int], max_count: int, max_chars: int = LISTING_CHARS) -> list[tuple[int, int]]:
    """Consecutive (start, end) ranges of at most `max_count` items and `max_chars`
    characters (an item longer than that alone): how a long listing is cut into prompts."""
    ranges: list[tuple[int, int]] = []
    start, chars = 0, 0
    for index, length in enumerate(lengths):
        if index > start and (index - start >= max_count or chars + length > max_chars):
            ranges.append((start, index))
            start, chars = index, 0
        chars += length
    if start < len(lengths):
        ranges.append((start, len(lengths)))
    return ranges


def fitting_listing(texts: Sequence[str]) -> tuple[int, str]:
    """How many of `texts` (best first) fit one prompt's listing, at least one, and that
    listing numbered from 1: for prompts whose later items can be left out."""
    ranges = batches([len(t) + 6 for t in texts], len(texts))  # + the "N. " and line break
    count = ranges[0][1] if ranges else 0
    return count, "\n".join(f"{i}. {t}" for i, t in enumerate(texts[:count], 1))
