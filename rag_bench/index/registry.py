"""Dense indexes by config name (``retrieval.index=exact|hnsw|pgvector|chroma``): each one's schema and builder.

Adding an index: a module with its settings dataclass (derived from ``index.base.IndexConfig``)
and ``build(cfg, vectors, context) -> VectorIndex``, one entry here, and
``configs/retrieval/index/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options

# VECTOR_INDEXES.build(cfg, vectors, context): the index cfg describes, over vectors (n_chunks, dim) unit rows
VECTOR_INDEXES = Options(
    "retrieval.index",
    default="exact",
    options={
        "exact": Option("rag_bench.index.dense:ExactIndexConfig", "rag_bench.index.dense:build"),
        "hnsw": Option("rag_bench.index.hnsw:HNSWConfig", "rag_bench.index.hnsw:build"),
        "pgvector": Option(
            "rag_bench.index.postgres.pgvector:PgvectorConfig", "rag_bench.index.postgres.pgvector:build"
        ),
        "chroma": Option("rag_bench.index.chroma:ChromaConfig", "rag_bench.index.chroma:build"),
    },
)
