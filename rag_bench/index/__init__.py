"""Indexes: BM25 (``bm25/``) and the dense-index seam with exact, HNSW, pgvector (``postgres/``) and Chroma."""
