"""The dense index seam: ``VectorIndex``, built from unit vectors and searched by inner product.

Implementations: ``exact`` (``index/dense.py``, blockwise exact search) and ``hnsw``
(``index/hnsw.py``, faiss); database backends plug in the same way. Each is one entry of
``index/registry.py`` with its settings schema (``retrieval.index=<name>``, keys under
``retrieval.index.*``) and a builder that owns the index's build and persistence.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar, Protocol

import numpy as np
from omegaconf import MISSING

from rag_bench.cache import DiskCache


class VectorIndex(Protocol):
    """Top-``depth`` inner-product search over the (n_chunks, dim) unit vectors it was built from."""

    @property
    def nbytes(self) -> int:
        """Bytes the index holds (vectors and structure)."""
        ...

    def search(self, queries: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """(n_queries, <= depth) int64 chunk indices and float64 scores, best first, -1 / -inf padded."""
        ...


@dataclass
class IndexConfig:
    """Every dense index: its name. ``search_keys`` name the settings that do not change the built index."""

    name: str = MISSING

    approximate: ClassVar[bool] = False  # True: its recall against exact search is measured and reported
    search_keys: ClassVar[tuple[str, ...]] = ()

    def build_settings(self) -> dict:
        """The settings the built index depends on (a sweep over a search setting builds once)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in self.search_keys}


@dataclass(frozen=True)
class IndexContext:
    """What a builder may use beyond the vectors: the cache, and a key naming exactly these vectors."""

    cache: DiskCache
    vectors_key: str
