"""A private, throwaway Virtuoso 7 instance for tests, benchmarks and demos.

Usage::

    with VirtuosoServer(tmp_path) as vt:
        vt.sparql_url    # anonymous, read-only SPARQL endpoint (http://127.0.0.1:PORT/sparql)
        vt.update_url    # SPARQL 1.1 Update, HTTP digest auth as vt.user / vt.password
        vt.bulk_load_dir(data_dir)

or from a shell script (runs in the foreground until SIGTERM/SIGINT and prints one
JSON line with the URLs once the endpoint answers)::

    python -m tests.servers.virtuoso start --workdir DIR --http-port P --isql-port Q

Notes for clients (checked against Debian's Virtuoso 07.20.3229):

* ``/sparql`` lets anonymous users read but refuses updates (SR186 "No permission");
  ``/sparql-auth`` with digest auth as ``dba`` accepts updates, no GRANT needed.
* A query without FROM / GRAPH sees the union of all graphs.
* ``INSERT DATA`` without ``GRAPH <g> {...}`` fails (SP031 "No plain default graph")
  unless the request names one (``default-graph-uri`` parameter).
* The SPARQL parser refuses ``INSERT DATA`` with more than ~4,990 triples ("SP030 ...
  memory exhausted"): batch <= 4000 triples per request (~15-25k triples/s here).
* This ini sets no ``MaxQueryCostEstimationTime``. Where a server sets it (sample
  configs often use 400), the endpoint compiles every request once more with
  ``define sql:big-data-const 0`` to estimate its cost, which makes INSERT DATA ~10x
  slower and fails above ~1500 triples ("generated SQL text has exceeded 10000 lines").
  Starting the update text with ``DEFINE sql:big-data-const 1`` avoids that; it is
  harmless here.
* ASK comes back as a SELECT-style result (one row ``__ASK_RETVAL`` = 1, or no rows),
  not as ``{"boolean": ...}``, in JSON and XML alike; booleans are xsd:integer 1/0.
* Loading much data: ``bulk_load_dir`` (~100k triples/s) or POSTing N-Triples to
  ``graph_store_url`` (~60-80k triples/s) beat INSERT DATA.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from agent.process import HOST, LocalServer, free_port, log_tail, spawn
from tests.servers import serve, stop_on_signals

VIRTUOSO_BIN = "virtuoso-t"
ISQL_BIN = "isql-vt"
DEFAULT_USER = "dba"
# Virtuoso creates a fresh database with this dba password; start() changes it if asked.
FACTORY_PASSWORD = "dba"


def _sql_str(value: str) -> str:
    """Quote a value as an SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


class VirtuosoServer(LocalServer):
    """Context manager owning one Virtuoso process and its database in ``workdir``.

    Both listeners are bound to 127.0.0.1. A port of 0 means "pick a free one"; the
    chosen ports are known (and ``sparql_url`` etc. are valid) once ``start()`` returns.
    Reusing a ``workdir`` reopens the database that is already there.
    """

    user: str
    password: str

    def __init__(
        self,
        workdir: Path,
        http_port: int = 0,
        isql_port: int = 0,
        password: str = FACTORY_PASSWORD,
        *,
        dirs_allowed: Sequence[Path] = (),
    ) -> None:
        self.workdir = Path(workdir).resolve()
        self.http_port = http_port
        self.isql_port = isql_port
        self.user = DEFAULT_USER
        self.password = password
        # Folders (besides workdir and /tmp) that bulk_load_dir() may read from.
        self.dirs_allowed = [Path(d).resolve() for d in dirs_allowed]
        self._auto_ports = http_port == 0 or isql_port == 0
        self._proc = None
        self._log_file = self.workdir / "virtuoso.out"

    # ------------------------------------------------------------------ properties

    @property
    def sparql_url(self) -> str:
        return f"http://{HOST}:{self._port('http')}/sparql"

    @property
    def update_url(self) -> str:
        return f"http://{HOST}:{self._port('http')}/sparql-auth"

    @property
    def graph_store_url(self) -> str:
        """SPARQL 1.1 Graph Store protocol (digest auth); POST N-Triples/Turtle with
        ``?graph-uri=...``: much faster than INSERT DATA for loading."""
        return f"http://{HOST}:{self._port('http')}/sparql-graph-crud-auth"

    @property
    def ini_path(self) -> Path:
        return self.workdir / "virtuoso.ini"

    def _port(self, which: str) -> int:
        port = self.http_port if which == "http" else self.isql_port
        if port == 0:
            raise RuntimeError("VirtuosoServer: port not chosen yet; call start() first")
        return port

    @staticmethod
    def available() -> bool:
        """True if the Virtuoso server and isql client binaries are on PATH."""
        return shutil.which(VIRTUOSO_BIN) is not None and shutil.which(ISQL_BIN) is not None

    # ------------------------------------------------------------------ lifecycle

    def _write_ini(self) -> None:
        wd = self.workdir
        dirs = ", ".join(dict.fromkeys([".", str(wd), "/tmp", *map(str, self.dirs_allowed)]))
        # Minimal config: everything else takes Virtuoso's built-in defaults. No VAD or
        # plugin dirs (Debian's -bin package ships none and we need none). No
        # MaxQueryExecutionTime: with it Virtuoso returns silently truncated "anytime"
        # results, which would skew benchmarks; clients should set their own timeouts.
        # No MaxQueryCostEstimationTime: it makes large INSERT DATA slow and fail.
        ini = f"""\
[Database]
DatabaseFile       = {wd}/virtuoso.db
ErrorLogFile       = {wd}/virtuoso.log
LockFile           = {wd}/virtuoso.lck
TransactionFile    = {wd}/virtuoso.trx
xa_persistent_file = {wd}/virtuoso.pxa

[TempDatabase]
DatabaseFile    = {wd}/virtuoso-temp.db
TransactionFile = {wd}/virtuoso-temp.trx

[Parameters]
ServerPort        = {HOST}:{self.isql_port}
DisableUnixSocket = 1
DirsAllowed       = {dirs}
NumberOfBuffers   = 170000
MaxDirtyBuffers   = 130000
MaxQueryMem       = 1G
CheckpointInterval = 60

[HTTPServer]
ServerPort    = {HOST}:{self.http_port}
ServerRoot    = {wd}
ServerThreads = 10
Charset       = UTF-8

[SPARQL]
ResultSetMaxRows = 1000000
"""
        self.ini_path.write_text(ini)

    def start(self, timeout: float = 60.0) -> VirtuosoServer:
        """Write virtuoso.ini, start the server and wait until /sparql answers."""
        if self.is_running():
            return self
        if not self.available():
            raise RuntimeError(f"VirtuosoServer: {VIRTUOSO_BIN} / {ISQL_BIN} not found on PATH")
        self.workdir.mkdir(parents=True, exist_ok=True)
        want_http, want_isql = self.http_port, self.isql_port
        # Auto-picked ports can be taken between picking and binding: retry then.
        attempts = 3 if self._auto_ports else 1
        for attempt in range(attempts):
            self.http_port = want_http or free_port()
            self.isql_port = want_isql if want_isql not in (0, self.http_port) else free_port({self.http_port})
            try:
                self._launch_and_wait(timeout)
                break
            except RuntimeError as exc:
                port_clash = "Failed" in str(exc) and "listen" in str(exc)
                if not (port_clash and attempt + 1 < attempts):
                    raise
        self._ensure_password()
        atexit.register(self.stop)
        return self

    def _launch_and_wait(self, timeout: float) -> None:
        self._write_ini()
        log_start = self._log_file.stat().st_size if self._log_file.exists() else 0
        self._proc = spawn(
            [VIRTUOSO_BIN, "+foreground", "+configfile", str(self.ini_path)],
            self.workdir,
            self._log_file,
            # SIGTERM, not SIGKILL: Virtuoso's quick shutdown keeps committed data.
            signal.SIGTERM,
            # Own session: a Ctrl-C in the terminal reaches us, and we stop it cleanly.
            new_session=True,
        )
        deadline = time.monotonic() + timeout
        probe = self.sparql_url + "?" + urllib.parse.urlencode({"query": "ASK {}"})
        while True:
            if self._proc.poll() is not None:
                rc = self._proc.returncode
                self._proc = None
                raise RuntimeError(
                    f"Virtuoso exited with code {rc} during startup "
                    f"(workdir {self.workdir}); log tail:\n{log_tail(self._log_file, log_start, lines=40)}"
                )
            if self._http_ready(probe) and self._tcp_ready(self.isql_port):
                return
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(
                    f"Virtuoso did not answer on {self.sparql_url} within {timeout:.0f}s; "
                    f"log tail:\n{log_tail(self._log_file, log_start, lines=40)}"
                )
            time.sleep(0.1)

    @staticmethod
    def _http_ready(url: str) -> bool:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                return bool(resp.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    @staticmethod
    def _tcp_ready(port: int) -> bool:
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return True
        except OSError:
            return False

    def _ensure_password(self) -> None:
        """A fresh database has dba/dba; switch to the configured password if different.
        (A reused workdir may already have it, so try the configured one first.)"""
        if self.password == FACTORY_PASSWORD:
            return
        try:
            self.isql("SELECT 1;")
            return
        except RuntimeError as exc:
            if "Bad login" not in str(exc):
                raise
        self._run_isql(
            f"USER_SET_PASSWORD({_sql_str(self.user)}, {_sql_str(self.password)});",
            password=FACTORY_PASSWORD,
        )

    def stop(self, timeout: float = 30.0) -> None:
        """Shut down (SIGTERM = Virtuoso's quick shutdown; committed data survives via
        the transaction log), wait, SIGKILL if it hangs. Safe to call repeatedly."""
        self._stop_process(timeout)

    # ------------------------------------------------------------------ SQL

    def isql(self, sql: str, timeout: float | None = 600.0) -> str:
        """Run SQL (one or more ';'-terminated statements) as dba; return stdout.

        Output is bare values (VERBOSE=OFF): one row per line, columns separated by
        whitespace. Raises RuntimeError on any SQL error.
        """
        if not self.is_running():
            raise RuntimeError("VirtuosoServer is not running")
        return self._run_isql(sql, password=self.password, timeout=timeout)

    def _run_isql(self, sql: str, password: str, timeout: float | None = 600.0) -> str:
        script = sql.strip()
        if not script.endswith(";"):
            script += ";"
        # Statements are fed on stdin (no argv length limits or shell quoting). isql
        # would otherwise expand $NAME macros inside SQL strings ('$x' becomes NULL).
        script = "SET MACRO_SUBSTITUTION OFF;\n" + script
        # isql exits 0 even when a statement fails, so errors are detected from output.
        result = subprocess.run(
            [
                ISQL_BIN,
                f"{HOST}:{self._port('isql')}",
                self.user,
                password,
                "VERBOSE=OFF",
                "BANNER=OFF",
                "PROMPT=OFF",
                "ECHO=OFF",
            ],
            input=(script + "\n").encode(),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
        out = result.stdout.decode(errors="replace")
        err = result.stderr.decode(errors="replace")
        if result.returncode != 0 or "*** Error" in err or "*** Error" in out:
            raise RuntimeError(f"isql failed (rc={result.returncode}): {err.strip() or out.strip()}")
        return out

    def bulk_load_dir(self, directory: Path, pattern: str = "*.nt*", graph: str = "urn:kgqa:default") -> None:
        """Bulk load matching files (N-Triples, Turtle, .gz, ...) into ``graph``.

        Uses Virtuoso's RDF bulk loader (ld_dir + rdf_loader_run) and checkpoints
        afterwards, since the loader bypasses the transaction log. ``directory`` must
        be under workdir, /tmp or a ``dirs_allowed`` folder (Virtuoso's DirsAllowed).
        """
        directory = Path(directory).resolve()
        allowed = [self.workdir, Path("/tmp").resolve(), *self.dirs_allowed]
        if not any(directory.is_relative_to(a) for a in allowed):
            raise ValueError(
                f"{directory} is outside Virtuoso's DirsAllowed {[str(a) for a in allowed]}; "
                "pass it in dirs_allowed= when creating the server"
            )
        files = sorted(str(f) for f in directory.glob(pattern) if f.is_file())
        if not files:
            raise FileNotFoundError(f"no files matching {pattern!r} in {directory}")
        file_list = ", ".join(_sql_str(f) for f in files)
        self.isql(
            # ld_dir skips files already in LOAD_LIST (even for another graph):
            # forget earlier runs so every call really loads the files.
            f"DELETE FROM DB.DBA.LOAD_LIST WHERE ll_file IN ({file_list});\n"
            f"ld_dir({_sql_str(str(directory))}, {_sql_str(pattern)}, {_sql_str(graph)});\n"
            "rdf_loader_run();\n"
            "checkpoint;"
        )
        # The loader records per-file failures in LOAD_LIST instead of raising.
        errors = self.isql(
            f"SELECT ll_file, ll_error FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL AND ll_file IN ({file_list});"
        ).strip()
        if errors:
            raise RuntimeError(f"Virtuoso bulk load errors:\n{errors}")


# ---------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.servers.virtuoso",
        description="Run a private Virtuoso instance in the foreground until SIGTERM/SIGINT.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_start = sub.add_parser("start", help="start and print the endpoint URLs as one JSON line")
    p_start.add_argument("--workdir", type=Path, required=True)
    p_start.add_argument("--http-port", type=int, default=0, help="0 = pick a free port")
    p_start.add_argument("--isql-port", type=int, default=0, help="0 = pick a free port")
    p_start.add_argument("--password", default=os.environ.get("KGQA_VIRTUOSO_PASSWORD", "dba"))
    p_start.add_argument("--dirs-allowed", type=Path, nargs="*", default=[], help="extra folders to bulk load from")
    p_start.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)

    with stop_on_signals() as stop:
        server = VirtuosoServer(
            args.workdir,
            http_port=args.http_port,
            isql_port=args.isql_port,
            password=args.password,
            dirs_allowed=args.dirs_allowed,
        )
        try:
            server.start(timeout=args.timeout)
            info = {
                "sparql_url": server.sparql_url,
                "update_url": server.update_url,
                "graph_store_url": server.graph_store_url,
                "http_port": server.http_port,
                "isql_port": server.isql_port,
                "user": server.user,
                "workdir": str(server.workdir),
                "pid": server.pid,
            }
            return serve(server, info, stop, f"virtuoso exited unexpectedly; see {server.workdir}")
        finally:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
