"""Fusion of any retrievers' lists (``retrieval=hybrid``): by rank (RRF, the default) or by score.

``retrieval.fusion`` picks the method (``methods.py``): rrf, score(c) = sum_i w_i / (k_rrf + rank_i(c))
over the child lists holding chunk c (``rrf.py``); convex, sum_i w_i * norm_i(c) with min-max or z-score
normalisation (``convex.py``); dbsf, distribution-based score fusion (``dbsf.py``). w_i = ``retrieval.weights``.
Children that rank the same chunk table (rag-bench's own indexes over the corpus) fuse as they
are; lists over different tables (an external service's passages) are first put on one table,
chunks matched by id (``doc_id:start-end``), in order of first appearance.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Chunk
from rag_bench.retrieve.base import Candidates, Query, RetrievalStats, Retriever
from rag_bench.retrieve.fusion.methods import Fusion, check_fusion


@dataclass
class FusionSettings:
    """How ``retrieval=hybrid`` fuses: which retrievers, each one's weight, the method and its settings."""

    fuse: list[str] = field(default_factory=lambda: ["bm25", "dense"])  # retrieval modes, fused in this order
    k_rrf: float = 60.0
    weights: list[float] = field(default_factory=lambda: [1.0, 1.0])  # one per retriever in ``fuse``
    fusion: str = "rrf"  # rrf (ranks), convex (normalised scores, weighted sum), dbsf (distribution-based)
    normalize: str = "minmax"  # fusion=convex: minmax or zscore

    def check(self) -> None:
        check_fusion("retrieval.", self.fusion, self.normalize)
        if len(set(self.fuse)) != len(self.fuse) or len(self.fuse) < 2:
            raise ConfigError(f"retrieval.fuse ({list(self.fuse)}) must name at least two different retrievers")
        if self.k_rrf < 0:
            raise ConfigError(f"retrieval.k_rrf ({self.k_rrf}) must not be negative")
        if len(self.weights) == len(self.fuse) and min(self.weights) >= 0 and max(self.weights) == 0:
            raise ConfigError(
                f"retrieval.weights ({list(self.weights)}) are all 0, so every fused score would be 0 and the order "
                "meaningless; give at least one retriever a positive weight"
            )
        if len(self.weights) != len(self.fuse) or min(self.weights) < 0:
            raise ConfigError(
                f"retrieval.weights ({list(self.weights)}) must be {len(self.fuse)} non-negative numbers, "
                f"one per retriever in retrieval.fuse ({', '.join(self.fuse)})"
            )


class FusionRetriever:
    """The lists of ``children`` (each retrieves ``depth`` candidates) fused by ``fusion`` (RRF by default)."""

    name = "hybrid"

    def __init__(
        self, children: Sequence[Retriever], weights: Sequence[float], k_rrf: float, fusion: Fusion | None = None
    ) -> None:
        self.children, self.weights = list(children), list(weights)
        self.fusion = Fusion(k_rrf=k_rrf) if fusion is None else fusion

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        found = {child.name: child.retrieve(queries, depth) for child in self.children}
        start = time.perf_counter()
        chunks, parts = one_table(found)
        runs = [(p.indices, p.scores) for p in parts.values()]
        indices, scores = self.fusion.fuse(runs, self.weights, list(parts))
        stats = RetrievalStats(seconds=time.perf_counter() - start)
        return Candidates(chunks, indices, scores, stats, parts)


def one_table(found: dict[str, Candidates]) -> tuple[Sequence[Chunk], dict[str, Candidates]]:
    """The lists on one chunk table: the shared one, or the union of theirs by chunk id."""
    tables = [c.chunks for c in found.values()]
    if all(t is tables[0] for t in tables):
        return tables[0], dict(found)
    position: dict[str, int] = {}
    chunks: list[Chunk] = []
    parts = {}
    for name, cands in found.items():
        remap = np.empty(len(cands.chunks) + 1, dtype=np.int64)  # the last slot maps padding (-1) to -1
        remap[-1] = -1
        for i, chunk in enumerate(cands.chunks):
            if chunk.id not in position:
                position[chunk.id] = len(chunks)
                chunks.append(chunk)
            remap[i] = position[chunk.id]
        indices = remap[np.where(cands.indices >= 0, cands.indices, len(cands.chunks))]
        parts[name] = Candidates(chunks, indices, cands.scores, cands.stats)
    return chunks, parts
