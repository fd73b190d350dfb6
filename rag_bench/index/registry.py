"""Dense indexes by config name (``retrieval.index=exact|hnsw|pgvector|chroma``): each one's schema and builder.

Adding an index: a module with its settings dataclass (derived from ``index.base.IndexConfig``)
and ``build(cfg, vectors, context) -> VectorIndex``, one entry here, and
``configs/retrieval/index/<name>.yaml``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rag_bench.index import chroma, dense, hnsw
from rag_bench.index.base import IndexConfig, IndexContext, VectorIndex
from rag_bench.index.postgres import pgvector


@dataclass(frozen=True)
class IndexEntry:
    schema: type[IndexConfig]
    build: Callable[[IndexConfig, np.ndarray, IndexContext], VectorIndex]


VECTOR_INDEXES: dict[str, IndexEntry] = {
    "exact": IndexEntry(dense.ExactIndexConfig, dense.build),
    "hnsw": IndexEntry(hnsw.HNSWConfig, hnsw.build),
    "pgvector": IndexEntry(pgvector.PgvectorConfig, pgvector.build),
    "chroma": IndexEntry(chroma.ChromaConfig, chroma.build),
}


def build_index(cfg: IndexConfig, vectors: np.ndarray, context: IndexContext) -> VectorIndex:
    """The dense index ``cfg`` describes, over ``vectors`` (n_chunks, dim) unit rows."""
    return VECTOR_INDEXES[cfg.name].build(cfg, vectors, context)
