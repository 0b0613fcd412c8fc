"""Child processes that must not outlive us: the embedded model server (agent/llm/local.py)
and the throwaway graph servers the tests and benchmarks start (tests/servers/)."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

HOST = "127.0.0.1"
_LAUNCHER = Path(__file__).with_name("exec_with_death_signal.py")


def free_port(exclude: Collection[int] = ()) -> int:
    """A TCP port on 127.0.0.1 that the kernel reports free right now, not in ``exclude``."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((HOST, 0))
            port = int(sock.getsockname()[1])
        if port not in exclude:
            return port


def log_tail(path: Path, since: int = 0, lines: int = 30) -> str:
    """Last lines of a log file, ignoring the first ``since`` bytes (earlier runs)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(since)
            text = fh.read().decode(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def spawn(
    cmd: Sequence[str],
    cwd: Path,
    log_path: Path,
    death_signal: signal.Signals,
    *,
    new_session: bool = False,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``cmd`` with stdin closed and stdout/stderr appended to ``log_path`` (and
    ``env`` for its environment, ours by default).

    ``death_signal`` reaches the child if we die, so a crashed or SIGKILLed test run
    leaves no server behind (Linux only; it fires when the *thread* that called this
    exits). Safe to call while other threads run (see `exec_with_death_signal`).
    """
    program = cmd[0] if os.sep not in cmd[0] else str(cwd / cmd[0])
    if shutil.which(program) is None:  # raised here, as Popen would, not in the launcher
        raise FileNotFoundError(f"no such program: {cmd[0]}")
    launcher = [sys.executable, "-I", "-S", str(_LAUNCHER), str(int(death_signal)), str(os.getpid())]
    with open(log_path, "ab") as log:
        return subprocess.Popen(
            [*launcher, *cmd],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=new_session,
            env=env,
        )


class LocalServer:
    """Base of a context manager that owns one server process (``_proc``).

    Subclasses implement ``start`` (returning self) and ``stop`` (idempotent)."""

    _proc: subprocess.Popen[bytes] | None

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def is_running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _stop_process(self, timeout: float) -> None:
        """SIGTERM, wait ``timeout`` seconds, then SIGKILL; a no-op once stopped."""
        atexit.unregister(self.stop)
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
