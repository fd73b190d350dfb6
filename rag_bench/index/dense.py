"""Exact dense search: inner product of unit vectors (cosine), blockwise matrix products.

Scores are computed one (query block x chunk block) tile at a time into a reused buffer
small enough to stay near the cache, and each tile goes straight into a streaming top-k,
so the full (n_queries, n_chunks) score matrix never exists and memory-mapped vectors are
read once per query block.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rag_bench.index.base import IndexConfig, IndexContext
from rag_bench.index.topk import StreamingTopK

QUERY_BLOCK = 1024  # queries per tile
CHUNK_BLOCK = 8192  # chunks per tile: a 1024 x 8192 float32 tile is 32 MiB


@dataclass
class ExactIndexConfig(IndexConfig):
    """``retrieval.index=exact``: every chunk scored, nothing approximated."""

    name: str = "exact"


def build(cfg: ExactIndexConfig, vectors: np.ndarray, context: IndexContext) -> DenseIndex:
    return DenseIndex(vectors)


class DenseIndex:
    """Exact inner-product index over (n_chunks, dim) float32 unit vectors (a memory map stays one)."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)  # (n_chunks, dim)

    @property
    def nbytes(self) -> int:
        return self.vectors.nbytes

    def search(self, queries: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """(n_queries, min(depth, n_chunks)) chunk indices and float64 scores, best first, ties by chunk order."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)  # (n_queries, dim)
        if len(queries) == 0:
            return np.zeros((0, depth), np.int64), np.zeros((0, depth))
        n_chunks = self.vectors.shape[0]
        depth = min(depth, n_chunks)
        chunk_block = max(CHUNK_BLOCK, depth)
        tile = np.empty(min(QUERY_BLOCK, len(queries)) * min(chunk_block, max(n_chunks, 1)), np.float32)
        indices, scores = [], []
        for q0 in range(0, len(queries), QUERY_BLOCK):
            block = queries[q0 : q0 + QUERY_BLOCK]  # (nq, dim)
            best = StreamingTopK(len(block), depth)
            for c0 in range(0, n_chunks, chunk_block):
                chunks = self.vectors[c0 : c0 + chunk_block]  # (nc, dim)
                out = tile[: len(block) * len(chunks)].reshape(len(block), len(chunks))
                np.matmul(block, chunks.T, out=out)  # (nq, nc) scores
                best.push(out, c0)
            idx, val = best.result()
            indices.append(idx)
            scores.append(val)
        return np.concatenate(indices), np.concatenate(scores)
