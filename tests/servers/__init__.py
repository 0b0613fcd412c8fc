"""Start and stop local graph servers (Virtuoso, FalkorDB) for tests and benchmarks; not
part of the installed package.

Each server is a context manager that owns a work folder and a child process bound to
127.0.0.1 (agent/process.py), and stops it on exit. `python -m tests.servers.virtuoso start`
and `python -m tests.servers.falkordb start` run one in the foreground.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
from collections.abc import Iterator, Mapping

from agent.process import LocalServer


@contextlib.contextmanager
def stop_on_signals() -> Iterator[threading.Event]:
    """Turn SIGTERM/SIGINT into the yielded event for the duration of the block."""
    event = threading.Event()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    for sig in previous:
        signal.signal(sig, lambda _sig, _frame: event.set())
    try:
        yield event
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def serve(server: LocalServer, info: Mapping[str, object], stop: threading.Event, died: str) -> int:
    """CLI foreground loop: print ``info`` as one JSON line, then wait for ``stop``.

    Returns 0, or 1 (after printing ``died``) if the server exits first."""
    print(json.dumps(info), flush=True)
    while not stop.wait(0.5):
        if not server.is_running():
            print(died, file=sys.stderr)
            return 1
    return 0
