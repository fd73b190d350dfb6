"""The dense index seam: ``VectorIndex``, built from unit vectors and searched by inner product.

Implementations: ``exact`` (``index/dense.py``, blockwise exact search), ``hnsw``
(``index/hnsw.py``, faiss), and two databases: ``pgvector`` (PostgreSQL, ``index/postgres/pgvector.py``)
and ``chroma`` (``index/chroma.py``). Each is one entry of ``index/registry.py`` with its
settings schema (``retrieval.index=<name>``, keys under ``retrieval.index.*``) and a builder
that owns the index's build and persistence.

Every index applies per-query metadata filters inside its search (``filters``: one
``Filter`` or None per query, evaluated on the chunk metadata in ``IndexContext.metadata``).
An index that keeps a record of its work (build time, size on disk, the statements it ran)
is ``Reporting``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
from omegaconf import MISSING

from rag_bench.core.cache import DiskCache
from rag_bench.core.filters import Filter, MetadataTable


class VectorIndex(Protocol):
    """Top-``depth`` inner-product search over the (n_chunks, dim) unit vectors it was built from."""

    @property
    def nbytes(self) -> int:
        """Bytes the index holds (vectors and structure)."""
        ...

    def search(
        self, queries: np.ndarray, depth: int, filters: Sequence[Filter | None] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(n_queries, <= depth) int64 chunk indices and float64 scores, best first, -1 / -inf padded.

        Query i sees only the chunks ``filters[i]`` allows (all of them when None).
        """
        ...


@dataclass(frozen=True)
class IndexReport:
    """What building and keeping an index cost, and what it ran."""

    build_seconds: float  # the build's own time (when reused: what the earlier build took)
    built: bool  # False: the index an earlier run or sweep point built was reused
    disk_bytes: int | None = None  # size on disk (table + index files), None for in-memory indexes
    log_name: str = ""  # file for ``log`` in the run folder, e.g. "pgvector.sql"
    log: tuple[str, ...] = ()  # the statements or calls the index ran, in order
    details: dict = field(default_factory=dict)  # anything else worth recording (server version, ...)


@runtime_checkable
class Reporting(Protocol):
    """An index that records its build, size and statements."""

    def report(self) -> IndexReport: ...


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
    """What a builder may use beyond the vectors: the cache, a key naming exactly these vectors, chunk metadata."""

    cache: DiskCache
    vectors_key: str
    metadata: MetadataTable | None = None  # each chunk's document metadata (None: no filters allowed)
    metadata_key: str = ""  # names the metadata, for indexes that store it
