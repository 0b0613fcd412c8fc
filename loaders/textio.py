"""Reading big, possibly gzipped, text files line by line while reporting progress in bytes."""

from __future__ import annotations

import gzip
import io
from collections.abc import Callable, Iterator
from pathlib import Path


def iter_lines(path: Path, on_bytes: Callable[[int], None] | None = None) -> Iterator[tuple[int, str]]:
    """(line number from 1, line without newline). Progress is in bytes of the file on
    disk (compressed bytes for .gz), reported every ~1 MB. Undecodable bytes become U+FFFD
    so one bad byte costs one line, not the load."""
    with open(path, "rb") as raw:
        try:
            # Closing `raw` (the with) is enough: the gzip reader holds nothing else.
            stream = gzip.open(raw) if path.suffix == ".gz" else raw  # noqa: SIM115
            text = io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline="")
            reported = 0
            for line_no, line in enumerate(text, 1):
                yield line_no, line.rstrip("\r\n")
                if on_bytes is not None and not line_no & 4095:
                    pos = raw.tell()
                    if pos - reported >= 1 << 20:
                        on_bytes(pos - reported)
                        reported = pos
            if on_bytes is not None:
                on_bytes(raw.tell() - reported)
        except (OSError, EOFError) as exc:  # truncated gzip, unreadable file
            from loaders.records import MalformedInput

            raise MalformedInput(str(path), 0, f"cannot read file: {exc}") from exc
