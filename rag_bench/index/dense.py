"""Exact dense search: inner product of unit vectors (cosine), blockwise matrix products.

Scores are computed one (query block x chunk block) tile at a time into a reused buffer
small enough to stay near the cache, and each tile goes straight into a streaming top-k
(C where it was built, numpy's otherwise: compiled_topk.py), so the full (n_queries, n_chunks)
score matrix never exists and memory-mapped vectors are read once per query block. A
filtered query is searched over the rows its filter allows (masked before top-k, so it gets
the exact filtered top depth), one pass per distinct filter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.core.filters import Filter, MetadataTable
from rag_bench.index.base import IndexConfig, IndexContext
from rag_bench.index.compiled_topk import streaming_top_k

QUERY_BLOCK = 1024  # queries per tile
CHUNK_BLOCK = 2048  # chunks per tile of QUERY_BLOCK queries: a 1024 x 2048 float32 tile is 8 MiB


@dataclass
class ExactIndexConfig(IndexConfig):
    """``retrieval.index=exact``: every chunk scored, nothing approximated."""

    name: str = "exact"


def build(cfg: ExactIndexConfig, vectors: np.ndarray, context: IndexContext) -> DenseIndex:
    return DenseIndex(vectors, context.metadata)


class DenseIndex:
    """Exact inner-product index over (n_chunks, dim) float32 unit vectors (a memory map stays one)."""

    def __init__(self, vectors: np.ndarray, metadata: MetadataTable | None = None) -> None:
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)  # (n_chunks, dim)
        self.metadata = metadata

    @property
    def nbytes(self) -> int:
        return self.vectors.nbytes

    def search(
        self, queries: np.ndarray, depth: int, filters: Sequence[Filter | None] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(n_queries, min(depth, n_chunks)) chunk indices and float64 scores, best first, ties by chunk order."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)  # (n_queries, dim)
        if filters is None or all(f is None for f in filters):
            return _exact(self.vectors, queries, depth)
        width = min(depth, self.vectors.shape[0])
        indices = np.full((len(queries), width), -1, np.int64)
        scores = np.full((len(queries), width), -np.inf)
        for rows, allowed in filtered_groups(self.metadata, filters):
            vectors = self.vectors if allowed is None else self.vectors[allowed]
            found, values = _exact(vectors, queries[rows], width)
            n = found.shape[1]
            indices[rows, :n] = found if allowed is None else np.where(found >= 0, allowed[found], -1)
            scores[rows, :n] = values
        return indices, scores


def filtered_groups(
    metadata: MetadataTable | None, filters: Sequence[Filter | None]
) -> list[tuple[list[int], np.ndarray | None]]:
    """(query rows, ascending chunk indices the filter allows, or None for all) per distinct filter."""
    if metadata is None:
        raise ValueError("a filtered search needs the chunks' metadata (IndexContext.metadata)")
    out: dict[str | None, tuple[list[int], np.ndarray | None]] = {}
    for row, flt in enumerate(filters):
        key = None if flt is None else flt.source
        if key not in out:
            out[key] = ([], None if flt is None else np.flatnonzero(metadata.mask(flt)))
        out[key][0].append(row)
    return list(out.values())


def _exact(vectors: np.ndarray, queries: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact top ``depth`` of ``queries`` over ``vectors``, blockwise (see the module docstring)."""
    if len(queries) == 0:
        return np.zeros((0, depth), np.int64), np.zeros((0, depth))
    n_chunks = vectors.shape[0]
    depth = min(depth, n_chunks)
    rows = min(QUERY_BLOCK, len(queries))
    chunk_block = max(CHUNK_BLOCK * QUERY_BLOCK // rows, depth)  # fewer queries, wider tiles of the same size
    tile = np.empty(rows * min(chunk_block, max(n_chunks, 1)), np.float32)
    indices, scores = [], []
    for q0 in range(0, len(queries), QUERY_BLOCK):
        block = queries[q0 : q0 + QUERY_BLOCK]  # (nq, dim)
        best = streaming_top_k(len(block), depth)
        for c0 in range(0, n_chunks, chunk_block):
            chunks = vectors[c0 : c0 + chunk_block]  # (nc, dim)
            out = tile[: len(block) * len(chunks)].reshape(len(block), len(chunks))
            np.matmul(block, chunks.T, out=out)  # (nq, nc) scores
            best.push(out, c0)
        idx, val = best.result()
        indices.append(idx)
        scores.append(val)
    return np.concatenate(indices), np.concatenate(scores)
