"""Approximate dense search: HNSW graph over inner product (faiss ``IndexHNSWFlat``).

Malkov and Yashunin, "Efficient and robust approximate nearest neighbor search using
Hierarchical Navigable Small World graphs", IEEE TPAMI 42(4), 2020. faiss is the
optional ``ann`` extra; its wheels exist for every platform rag-bench runs on and its flat
index is the reference that exact search is benchmarked against. The graph is built on one
thread, so the same vectors and settings always give the same graph and the same results.
A filtered query searches the whole graph but may return only the chunks its filter allows
(faiss ``IDSelectorBitmap`` in the search parameters): a selective filter leaves the beam
few allowed nodes, and recall against exact filtered search drops, as in real deployments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.core.filters import Filter, MetadataTable
from rag_bench.index.base import IndexConfig, IndexContext
from rag_bench.index.dense import filtered_groups


def _faiss():  # the faiss module, imported on first use
    try:
        import faiss
    except ImportError:
        raise ConfigError(
            "retrieval.index=hnsw needs faiss, which is not installed; "
            "install it with: pip install 'rag-bench[ann]', or use retrieval.index=exact"
        ) from None
    return faiss


@dataclass
class HNSWConfig(IndexConfig):
    """``retrieval.index=hnsw``: faiss HNSW graph (the ``ann`` extra); its recall against exact is reported."""

    name: str = "hnsw"
    m: int = 32  # graph neighbours per node
    ef: int = 128  # search breadth (higher = better recall, slower)
    ef_construction: int = 200  # build breadth

    approximate: ClassVar[bool] = True
    search_keys: ClassVar[tuple[str, ...]] = ("ef",)

    def __post_init__(self) -> None:
        for key in ("m", "ef", "ef_construction"):
            if getattr(self, key) < 2:
                raise ConfigError(f"retrieval.index.{key} ({getattr(self, key)}) must be an integer >= 2")


def build(cfg: HNSWConfig, vectors: np.ndarray, context: IndexContext) -> HNSWIndex:
    return HNSWIndex(vectors, M=cfg.m, ef=cfg.ef, ef_construction=cfg.ef_construction, metadata=context.metadata)


class HNSWIndex:
    """Approximate inner-product index over (n_chunks, dim) float32 unit vectors; ``DenseIndex``'s interface.

    ``M`` is the graph degree, ``ef`` the search beam (raised to the depth when smaller),
    ``ef_construction`` the build beam; larger values trade speed for recall.
    """

    def __init__(
        self,
        vectors: np.ndarray,
        M: int = 32,
        ef: int = 128,
        ef_construction: int = 200,
        metadata: MetadataTable | None = None,
    ) -> None:
        for name, value in (("M", M), ("ef", ef), ("ef_construction", ef_construction)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 2:
                raise ConfigError(f"retrieval.hnsw.{name} ({value!r}) must be an integer >= 2")
        faiss = _faiss()
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)  # (n_chunks, dim)
        self.n_chunks, self.dim = vectors.shape
        self.ef = int(ef)
        self.metadata = metadata
        self.index = faiss.IndexHNSWFlat(self.dim, int(M), faiss.METRIC_INNER_PRODUCT)
        self.index.hnsw.efConstruction = int(ef_construction)
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)  # insertion order decides the graph: keep it fixed
        try:
            self.index.add(vectors)
        finally:
            faiss.omp_set_num_threads(threads)

    @property
    def nbytes(self) -> int:
        """Bytes of the stored vectors and graph links."""
        hnsw = self.index.hnsw
        links = hnsw.neighbors.size() * 4 + hnsw.offsets.size() * 8 + hnsw.levels.size() * 4
        return int(self.n_chunks * self.dim * 4 + links)

    def search(
        self, queries: np.ndarray, depth: int, filters: Sequence[Filter | None] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(n_queries, min(depth, n_chunks)) chunk indices and float64 scores, best first, -1/-inf padded."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)  # (n_queries, dim)
        if len(queries) == 0:
            return np.zeros((0, depth), np.int64), np.zeros((0, depth))
        depth = min(depth, self.n_chunks)
        if depth <= 0:
            return np.zeros((len(queries), 0), np.int64), np.zeros((len(queries), 0))
        if filters is None or all(f is None for f in filters):
            return self._search(queries, depth, None)
        indices = np.full((len(queries), depth), -1, np.int64)
        scores = np.full((len(queries), depth), -np.inf)
        for rows, allowed in filtered_groups(self.metadata, filters):
            indices[rows], scores[rows] = self._search(queries[rows], depth, allowed)
        return indices, scores

    def _search(self, queries: np.ndarray, depth: int, allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """The graph search, keeping only the chunk indices ``allowed`` (all when None)."""
        faiss = _faiss()
        params = faiss.SearchParametersHNSW()
        params.efSearch = max(self.ef, depth)
        if allowed is not None:
            bitmap = np.packbits(np.isin(np.arange(self.n_chunks), allowed), bitorder="little")
            selector = faiss.IDSelectorBitmap(self.n_chunks, faiss.swig_ptr(bitmap))
            params.sel = selector
        scores, indices = self.index.search(queries, depth, params=params)
        indices = indices.astype(np.int64)
        scores = np.where(indices >= 0, scores.astype(np.float64), -np.inf)
        order = np.lexsort((np.where(indices >= 0, indices, np.iinfo(np.int64).max), -scores))  # row-wise
        return np.take_along_axis(indices, order, axis=1), np.take_along_axis(scores, order, axis=1)


def recall_at_depth(approx: np.ndarray, exact: np.ndarray) -> float:
    """Mean over queries of |approx_q ∩ exact_q| / |exact_q| (rows of chunk indices, -1 padded); 1.0 if none."""
    approx, exact = np.asarray(approx, dtype=np.int64), np.asarray(exact, dtype=np.int64)
    if approx.shape[0] != exact.shape[0]:
        raise ValueError(f"{approx.shape[0]} approximate rows for {exact.shape[0]} exact rows")
    span = int(max(approx.max(initial=0), exact.max(initial=0))) + 1
    truth_rows, truth_cols = np.nonzero(exact >= 0)
    found_rows, found_cols = np.nonzero(approx >= 0)
    truth = truth_rows * span + exact[truth_rows, truth_cols]  # (n_truth,) one key per (query, chunk)
    hit = np.isin(truth, found_rows * span + approx[found_rows, found_cols])
    n_truth = np.bincount(truth_rows, minlength=exact.shape[0])
    n_hit = np.bincount(truth_rows, weights=hit, minlength=exact.shape[0])
    judged = n_truth > 0
    return float(np.mean(n_hit[judged] / n_truth[judged])) if judged.any() else 1.0
