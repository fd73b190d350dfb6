"""Reciprocal rank fusion.

score(d) = sum_i w_i / (k_rrf + rank_i(d)), rank from 1, over the lists that hold d.
Cormack, Clarke and Buettcher, "Reciprocal Rank Fusion outperforms Condorcet and
individual Rank Learning Methods", SIGIR 2009.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag_bench.index.topk import top_k_row


def rrf(
    runs: Sequence[np.ndarray], k_rrf: float = 60.0, weights: Sequence[float] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Fuse ranked lists: each run is (n_queries, depth_i) item indices, -1 padded.

    Returns (n_queries, sum of depths) fused indices and scores, -1/-inf padded,
    best first; equal scores break by item index (corpus order).
    Example: item 7 at rank 1 in one run and rank 3 in the other scores
    1/(60+1) + 1/(60+3).
    """
    weights = [1.0] * len(runs) if weights is None else list(weights)
    n_queries = runs[0].shape[0]
    width = sum(r.shape[1] for r in runs)
    # (n_queries, width): every (item, contribution) pair of every run, side by side
    items = np.concatenate(runs, axis=1)
    contrib = np.concatenate(
        [
            np.broadcast_to(w / (k_rrf + np.arange(1, r.shape[1] + 1)), r.shape)
            for r, w in zip(runs, weights, strict=True)
        ],
        axis=1,
    )
    out_idx = np.full((n_queries, width), -1, dtype=np.int64)
    out_val = np.full((n_queries, width), -np.inf)
    for q in range(n_queries):
        valid = items[q] >= 0
        unique, inverse = np.unique(items[q][valid], return_inverse=True)
        fused = np.bincount(inverse, weights=contrib[q][valid], minlength=len(unique))
        order, values = top_k_row(fused, len(unique))
        out_idx[q, : len(order)] = unique[order]
        out_val[q, : len(order)] = values
    return out_idx, out_val
