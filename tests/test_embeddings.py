"""Embeddings: the packaged model really encodes (offline), and the cache spares work."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.embeddings import DIMENSIONS, Embedder, cosine_rank


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return Embedder(tmp_path_factory.mktemp("emb") / "vectors.sqlite")


def test_similar_texts_rank_first(embedder: Embedder) -> None:
    query = embedder.encode(["who directed Forrest Gump"])[0]
    candidates = embedder.encode([
        "film.film.genre -> Drama",
        "Forrest Gump -> film.film.directed_by -> Robert Zemeckis",
        "people.person.nationality -> United States of America",
    ])
    assert candidates.shape == (3, DIMENSIONS)
    assert np.allclose(np.linalg.norm(candidates, axis=1), 1.0, atol=1e-5)
    assert cosine_rank(query, candidates)[0] == 1


def test_cache_encodes_each_text_once_across_instances(tmp_path: Path) -> None:
    first = Embedder(tmp_path / "v.sqlite")
    a = first.encode(["Tom Hanks", "Tom Hanks", "Meg Ryan"])
    assert first.encoded == 2 and np.allclose(a[0], a[1])
    first.close()
    second = Embedder(tmp_path / "v.sqlite")
    b = second.encode(["Meg Ryan", "Tom Hanks"])
    assert second.encoded == 0
    assert np.allclose(b[0], a[2]) and np.allclose(b[1], a[0])
