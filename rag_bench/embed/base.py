"""The embedding stage: its protocol, and the settings every embedder shares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from omegaconf import MISSING

from rag_bench.core.errors import ConfigError

INPUT_TYPES = ("document", "query")
MAX_DIMENSION = 65_536  # above any embedding model's (the largest are 4,096-16,384)


@dataclass
class EmbedderConfig:
    """Every embedder: its name, model, output dimension, and the prefixes put before its texts."""

    name: str = MISSING
    model: str | None = None
    dimension: int | None = None  # null = the model's native dimension
    query_prefix: str | None = None  # put before each question; null = the model family's (embed/prefixes.py)
    document_prefix: str | None = None  # put before each chunk; null = the model family's, "" = none

    def __post_init__(self) -> None:
        if self.dimension is not None and not 1 <= self.dimension <= MAX_DIMENSION:
            raise ConfigError(
                f"embedder.dimension ({self.dimension}) must lie between 1 and {MAX_DIMENSION}, or be null for native"
            )


class Embedder(Protocol):
    """Turns texts into unit-length vectors; ``input_type`` is ``document`` or ``query``."""

    name: str  # identifies the model in cache keys, e.g. "local/all-MiniLM-L6-v2-int8"
    dimension: int
    # optional ``cache_name``: names the vectors in the cache instead of ``name`` (``vector_cache_name``)

    def embed(self, texts: Sequence[str], input_type: str) -> np.ndarray:
        """(len(texts), dimension) float32, rows of unit length."""
        ...


def vector_cache_name(embedder: Embedder) -> str:
    """What names an embedder's vectors in the cache: its ``cache_name`` when it has one, else its ``name``.

    An embedder whose vectors depend on rag-bench's own code as well as on its model (the local
    one: tokenizer settings, batching, pooling) sets ``cache_name`` to its name plus a digest of
    that code, so a changed rag-bench embeds again instead of serving vectors the old code made.
    """
    return getattr(embedder, "cache_name", None) or embedder.name


@runtime_checkable
class TokenCounting(Protocol):
    """An embedder that can count a text's tokens against its input limit (truncated chunks are reported)."""

    max_tokens: int

    def count_tokens(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts),) int64 tokens per text before truncation."""
        ...


@runtime_checkable
class Tokenizing(Protocol):
    """An embedder whose tokenizer measures chunk sizes (``chunker.unit=tokens``)."""

    special_tokens: int  # tokens every encoding adds ([CLS], [SEP])

    def token_spans(self, text: str) -> np.ndarray:
        """(n_tokens, 2) character offsets of the tokens of ``text``, special tokens left out."""
        ...


@runtime_checkable
class Truncatable(Protocol):
    """An embedder built at its largest (Matryoshka) dimension when ``matryoshka`` is True: smaller
    dimensions are prefixes of its vectors, renormalised."""

    matryoshka: bool


def is_matryoshka(embedder: Embedder) -> bool:
    return isinstance(embedder, Truncatable) and embedder.matryoshka


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)
