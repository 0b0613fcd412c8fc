"""Loading a KG file in a child process, so that the caller's own start-up (imports,
embeddings, a path memory) runs on another core meanwhile. A thread would not overlap
it: parsing is Python and holds the GIL. `kgqa demo` loads its film KG this way on first use.

The child opens the store by URL and loads the file unless the store already holds as many
facts as the file has (`facts`, when known: a store with fewer was loaded part way, say
until a Ctrl-C, and loading again completes it, since loads are idempotent). Through a
pipe it says that it started, its progress in bytes, then its report (or its error). It
is started with "spawn": a forked child would inherit the locks of the caller's other
threads (the model starting, say) in whatever state they were in.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import closing
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Self

from kg_store import open_store
from kg_store.errors import InputError, KGQAError, StoreError
from loaders.load import LoadReport, load_file

PROGRESS_EVERY_S = 0.2


class BackgroundLoad:
    """A load running in a child process; `wait` returns its report (None when the store
    already held `facts` facts) or raises its error here, in the caller.

    `store_options` are `open_store`'s keyword arguments (credentials, schema prefixes).
    `on_start()` is called when the child begins a load (not when the store held them
    already) and `on_bytes(n)` as it reads the file, both on a thread of ours that listens
    to the child, as soon as it tells, so progress shows while the caller does other work.
    Use it as a context manager: leaving before `wait` stops the child.
    """

    def __init__(self, url: str, fmt: str, path: Path, *, store_options: dict[str, Any], facts: int | None = None,
                 on_start: Callable[[], None] | None = None, on_bytes: Callable[[int], None] | None = None) -> None:
        context = multiprocessing.get_context("spawn")
        receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(target=_load_and_report, name="kgqa-load", daemon=True,
                                        args=(sender, url, fmt, str(path), store_options, facts))
        self._process.start()
        sender.close()  # the child holds the only sending end: its exit ends our reads
        self._outcome: Future[LoadReport | None] = Future()
        self._listener = threading.Thread(target=self._listen, args=(receiver, on_start, on_bytes),
                                          name="kgqa-load-listener", daemon=True)
        self._listener.start()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def done(self) -> bool:
        """Whether the child has ended, with its report or its error."""
        return self._outcome.done()

    def wait(self) -> LoadReport | None:
        """Block until the child is done."""
        try:
            return self._outcome.result()
        finally:
            self.close()

    def close(self) -> None:
        if self._process.is_alive():
            self._process.terminate()  # the caller gave up: what was written stays (loads are idempotent)
        self._process.join()
        self._listener.join()

    def _listen(self, receiver: Connection, on_start: Callable[[], None] | None,
                on_bytes: Callable[[int], None] | None) -> None:
        with receiver:
            try:
                while True:
                    kind, value = receiver.recv()
                    if kind == "start":
                        if on_start is not None:
                            on_start()
                    elif kind == "bytes":
                        if on_bytes is not None:
                            on_bytes(value)
                    elif kind == "report":
                        self._outcome.set_result(value)
                        return
                    else:
                        self._outcome.set_exception(_error(kind, value))
                        return
            except EOFError:
                self._process.join()
                self._outcome.set_exception(RuntimeError(
                    f"the loading process ended without a report (exit code {self._process.exitcode})"))
            except BaseException as exc:  # noqa: BLE001 - a callback's error reaches the caller at `wait`
                self._outcome.set_exception(exc)


def _error(kind: str, message: str) -> Exception:
    """The child's error, of a kind the caller's handlers know."""
    if kind == "store":
        return StoreError(message)
    if kind == "input":
        return InputError(message)
    if kind == "error":
        return KGQAError(message)
    return RuntimeError(f"the loading process failed:\n{message}")  # a bug: its traceback


def _load_and_report(results: Connection, url: str, fmt: str, path: str, store_options: dict[str, Any],
                     facts: int | None) -> None:
    """The child's work: open, load, report through `results`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's: it stops us (close)
    pending, last_sent = 0, time.monotonic()

    def on_bytes(n: int) -> None:
        nonlocal pending, last_sent
        pending += n
        if time.monotonic() - last_sent >= PROGRESS_EVERY_S:
            results.send(("bytes", pending))
            pending, last_sent = 0, time.monotonic()

    try:
        with closing(open_store(url, **store_options)) as store:
            if facts is not None and store.stats().triples >= facts:
                results.send(("report", None))
                return
            results.send(("start", None))
            report = load_file(store, fmt, Path(path), on_bytes=on_bytes)  # the store's schema prefixes
        if pending:
            results.send(("bytes", pending))
        results.send(("report", report))
    except StoreError as exc:
        results.send(("store", str(exc)))
    except InputError as exc:
        results.send(("input", str(exc)))
    except KGQAError as exc:
        results.send(("error", str(exc)))
    except Exception:  # noqa: BLE001 - a bug: the caller shows the child's traceback
        results.send(("bug", traceback.format_exc()))
    finally:
        results.close()
