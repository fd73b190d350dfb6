"""Dense indexes by config name (``retrieval.index=exact|hnsw|pgvector|chroma``): each one's schema and builder.

Adding an index: a module with its settings dataclass (derived from ``index.base.IndexConfig``)
and ``build(cfg, vectors, context) -> VectorIndex``, one entry here, and
``configs/retrieval/index/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.index import chroma, dense, hnsw
from rag_bench.index.postgres import pgvector

# VECTOR_INDEXES.build(cfg, vectors, context): the index cfg describes, over vectors (n_chunks, dim) unit rows
VECTOR_INDEXES = Options(
    "retrieval.index",
    default="exact",
    options={
        "exact": Option(dense.ExactIndexConfig, dense.build),
        "hnsw": Option(hnsw.HNSWConfig, hnsw.build),
        "pgvector": Option(pgvector.PgvectorConfig, pgvector.build),
        "chroma": Option(chroma.ChromaConfig, chroma.build),
    },
)
