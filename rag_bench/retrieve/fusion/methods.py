"""Fusion methods by name (``retrieval.fusion``, ``retrieval.variant_fusion``): rank-based RRF, or score fusion.

  rrf     sum_i w_i / (k_rrf + rank_i)                      ``rrf.py``
  convex  sum_i w_i * norm_i(score), minmax or zscore       ``convex.py`` (``normalize``)
  dbsf    sum_i w_i * (score - mean + 3 std) / (6 std)      ``dbsf.py``
Each takes (indices, scores) runs over one item table, one weight per run, and returns fused
(n_queries, sum of depths) indices and scores, -1 / -inf padded, best first, equal scores by item index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.core.options import one_of
from rag_bench.retrieve.fusion.combine import Run
from rag_bench.retrieve.fusion.convex import NORMALISATIONS, convex
from rag_bench.retrieve.fusion.dbsf import dbsf
from rag_bench.retrieve.fusion.rrf import rrf

METHODS = {
    "rrf": lambda f, runs, weights: rrf([indices for indices, _ in runs], f.k_rrf, weights),
    "convex": lambda f, runs, weights: convex(runs, weights, f.normalize),
    "dbsf": lambda f, runs, weights: dbsf(runs, weights),
}
SCORED = ("convex", "dbsf")  # the methods that read scores, not only ranks


@dataclass(frozen=True)
class Fusion:
    """One fusion method with its settings."""

    method: str = "rrf"
    k_rrf: float = 60.0
    normalize: str = "minmax"  # convex only

    def fuse(
        self, runs: Sequence[Run], weights: Sequence[float], names: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Fuse ``runs`` (named ``names``, for messages): a score method needs finite scores for every candidate."""
        if self.method in SCORED:
            for (indices, scores), name in zip(runs, names, strict=True):
                if not np.isfinite(scores[indices >= 0]).all():
                    raise ConfigError(
                        f"retrieval fusion {self.method} reads scores, and list {name!r} holds candidates without "
                        "a finite score; use fusion rrf (ranks only) for it"
                    )
        return METHODS[self.method](self, runs, weights)


def check_fusion(prefix: str, method: str, normalize: str) -> None:
    """ConfigError unless ``method`` and ``normalize`` are known (``prefix``: retrieval. or retrieval.variant_)."""
    one_of(f"{prefix}fusion", method, tuple(METHODS))
    one_of(f"{prefix}normalize", normalize, tuple(NORMALISATIONS))
