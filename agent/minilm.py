"""all-MiniLM-L6-v2's forward pass in NumPy, for a start in a fraction of a second.

sentence-transformers brings torch and transformers, whose imports take 5-7 s on two CPU
cores: most of a first answer's start-up (docs/benchmarks.md). A question needs a handful
of short texts embedded, which this six-layer BERT does in milliseconds with the same
weights and tokenizer. `Embedder` runs it until the first large batch, and
sentence-transformers from then on, where torch's threaded kernels pay for the import. The
vectors are the same to float32 rounding (`tests/test_embeddings.py` compares them with
sentence-transformers')."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

# erf by Abramowitz & Stegun 7.1.26 (absolute error under 1.5e-7, below float32's rounding at
# 1): NumPy has no erf, and SciPy's is slower than these few array passes.
_ERF_P = np.float32(0.3275911)
_ERF_A = [np.float32(a) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)]
_SQRT_HALF = np.float32(0.7071067811865476)


def gelu(h: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, h * Phi(h), with erf as above."""
    z = np.abs(h) * _SQRT_HALF
    t = 1.0 / (1.0 + _ERF_P * z)
    poly = _ERF_A[0]
    for a in _ERF_A[1:]:
        poly = poly * t + a
    erf_abs = 1.0 - poly * t * np.exp(-z * z)
    return 0.5 * h * (1.0 + np.copysign(erf_abs, h))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    centred = x - x.mean(-1, keepdims=True)
    return centred / np.sqrt((centred * centred).mean(-1, keepdims=True) + eps) * weight + bias


class NumpyMiniLM:
    """The sentence-transformers model folder's BERT (weights, tokenizer, truncation length)
    as mean-pooled, unit-length float32 vectors."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text())
        self.heads, self.eps = config["num_attention_heads"], config["layer_norm_eps"]
        self.layers = config["num_hidden_layers"]
        max_length = json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length)
        self.tokenizer.enable_padding(pad_id=config["pad_token_id"])
        weights = load_file(str(model_dir / "model.safetensors"))
        self.w = {name.removeprefix("bert."): value for name, value in weights.items()}
        for i in range(self.layers):  # one product for query, key and value; weights stored as (in, out)
            p = f"encoder.layer.{i}.attention.self."
            self.w[p + "qkv.weight"] = np.concatenate([self.w[p + n + ".weight"] for n in ("query", "key", "value")]).T.copy()
            self.w[p + "qkv.bias"] = np.concatenate([self.w[p + n + ".bias"] for n in ("query", "key", "value")])
            for n in ("attention.output.dense", "intermediate.dense", "output.dense"):
                name = f"encoder.layer.{i}.{n}.weight"
                self.w[name] = self.w[name].T.copy()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One batch (padded to its longest text) -> (len(texts), hidden) unit rows."""
        encodings = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings])
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        x = self._forward(ids, mask)
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w, eps = self.w, self.eps
        batch, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        hidden = x.shape[-1]
        head = hidden // self.heads
        masked = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]  # padding gets no attention
        scale = np.float32(1.0 / np.sqrt(head))
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            flat = x.reshape(-1, hidden)
            qkv = (flat @ w[p + "attention.self.qkv.weight"] + w[p + "attention.self.qkv.bias"])
            q, k, v = qkv.reshape(batch, length, 3, self.heads, head).transpose(2, 0, 3, 1, 4)
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + masked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(-1, hidden)
            attended = context @ w[p + "attention.output.dense.weight"] + w[p + "attention.output.dense.bias"]
            flat = layer_norm(flat + attended, w[p + "attention.output.LayerNorm.weight"],
                              w[p + "attention.output.LayerNorm.bias"], eps)
            inner = gelu(flat @ w[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"])
            out = inner @ w[p + "output.dense.weight"] + w[p + "output.dense.bias"]
            x = layer_norm(flat + out, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"],
                           eps).reshape(batch, length, hidden)
        return x
