"""Python's cyclic garbage collector, paused for blocks that allocate many objects.

A load, a path memory's entries and a question's walk each allocate hundreds of thousands
of short-lived tuples and lists. Every 700 allocations the collector runs, and every so
often it walks every object the process holds (the model's client, the caches, the
imported modules): a large share of a load, of loading the bundled path memory, and of a
Freebase question's own work (results/2026-11-28/freebase-own-work: CWQ's p95 outside the
model 1.53 -> 0.90 s). Reference counting still frees
everything these blocks drop; only objects in reference cycles wait for the collector,
which runs as usual once no block is paused.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

# A server whose questions overlap without a pause would keep the collector off for good:
# past this long, a block that ends while others run collects once itself.
COLLECT_EVERY_S = 60.0

_lock = threading.Lock()
_paused = 0  # blocks under way, on any thread
_was_enabled = False  # the collector's state when the first of them began
_off_since = 0.0  # when the collector last went off, or last collected while off


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """The collector off for the block. Blocks may nest and overlap across threads (a web
    server's questions): it is back on when the last one ends, if it was on before the first;
    while blocks keep overlapping, one ending collects every `COLLECT_EVERY_S` seconds."""
    global _paused, _was_enabled, _off_since
    with _lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            _off_since = time.monotonic()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0:
                if _was_enabled:
                    gc.enable()
            elif _was_enabled and time.monotonic() - _off_since > COLLECT_EVERY_S:
                _off_since = time.monotonic()
                gc.collect()
