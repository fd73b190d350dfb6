"""Exact dense search: inner product of unit vectors (cosine), batched matrix products."""

from __future__ import annotations

import numpy as np

from rag_bench.index.topk import top_k

QUERY_BATCH = 256


class DenseIndex:
    """Exact inner-product index over (n_chunks, dim) float32 unit vectors."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)  # (n_chunks, dim)

    @property
    def nbytes(self) -> int:
        return self.vectors.nbytes

    def search(self, queries: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """(n_queries, depth) chunk indices and scores, best first, ties by chunk order."""
        queries = np.asarray(queries, dtype=np.float32)
        parts = []
        for first in range(0, len(queries), QUERY_BATCH):
            scores = queries[first : first + QUERY_BATCH] @ self.vectors.T  # (batch, n_chunks)
            parts.append(top_k(scores, min(depth, self.vectors.shape[0])))
        if not parts:
            return np.zeros((0, depth), np.int64), np.zeros((0, depth))
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
