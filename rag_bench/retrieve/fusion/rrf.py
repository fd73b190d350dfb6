"""Reciprocal rank fusion.

score(d) = sum_i w_i / (k_rrf + rank_i(d)), rank from 1, over the lists that hold d.
Cormack, Clarke and Buettcher, "Reciprocal Rank Fusion outperforms Condorcet and
individual Rank Learning Methods", SIGIR 2009.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

ROW_BLOCK = 128  # queries fused together: (128, width) temporaries stay small


def rrf(
    runs: Sequence[np.ndarray], k_rrf: float = 60.0, weights: Sequence[float] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Fuse ranked lists: each run is (n_queries, depth_i) item indices, -1 padded.

    Returns (n_queries, sum of depths) fused indices and scores, -1/-inf padded,
    best first; equal scores break by item index (corpus order).
    Example: item 7 at rank 1 in one run and rank 3 in the other scores
    1/(60+1) + 1/(60+3).
    Blocks of queries are fused together with row-wise sorts: one of integer keys groups each
    row's entries by item (keeping run order inside a group, so each sum adds its terms in run
    order, bit-identical to a per-query loop), one orders the fused items by score, and one of
    integer keys orders items of equal score by index.
    """
    weights = [1.0] * len(runs) if weights is None else list(weights)
    n_queries = runs[0].shape[0]
    # (width,) contribution of each column of the runs side by side: w_i / (k_rrf + rank)
    column_contrib = np.concatenate(
        [w / (k_rrf + np.arange(1, r.shape[1] + 1)) for r, w in zip(runs, weights, strict=True)]
    )
    width = column_contrib.size
    items = np.concatenate(runs, axis=1).astype(np.int64)  # (n_queries, width)
    out_idx = np.full((n_queries, width), -1, dtype=np.int64)
    out_val = np.full((n_queries, width), -np.inf)
    if n_queries == 0 or width == 0:
        return out_idx, out_val
    span = int(items.max()) + 2
    # Blocks of rows keep every temporary small: cache-resident and reused by the allocator.
    for first in range(0, n_queries, ROW_BLOCK):
        rows = slice(first, first + ROW_BLOCK)
        out_idx[rows], out_val[rows] = _fuse_block(items[rows], column_contrib, span)
    return out_idx, out_val


def _fuse_block(items: np.ndarray, column_contrib: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """Fused (indices, scores) of a block of rows: best first, equal scores by item index."""
    members, fused = _group_rows(items, column_contrib)
    by_score = np.argsort(-fused, axis=1)
    fused = np.take_along_axis(fused, by_score, axis=1)
    tier = np.zeros(fused.shape, dtype=np.int64)  # 0, 1, 2, ...: the row's distinct scores, best first
    np.cumsum(fused[:, 1:] != fused[:, :-1], axis=1, out=tier[:, 1:])
    ranked = np.sort(tier * span + np.take_along_axis(members, by_score, axis=1) + 1, axis=1) % span - 1
    return ranked, fused


def _group_rows(items: np.ndarray, column_contrib: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's distinct items and their summed contributions, once per row (-1 / -inf elsewhere)."""
    width = items.shape[1]
    shift = max(int(width - 1).bit_length(), 1)  # key = item << shift | column
    # sorting the keys groups a row by item, then by column (run order); padding (-1) first
    key = np.sort((items << shift) | np.arange(width), axis=1)
    item, column = key >> shift, key & ((1 << shift) - 1)
    valid = item >= 0
    first = valid.copy()  # True at each group's first entry
    first[:, 1:] &= item[:, 1:] != item[:, :-1]
    group = np.cumsum(first[valid]) - 1  # group of every valid entry, row-major
    sums = np.bincount(group, weights=column_contrib[column[valid]])  # adds each group's terms in run order
    at = np.flatnonzero(first)  # (n_groups,) flat position of each group, row-major like ``sums``
    fused = np.full(items.shape, -np.inf)
    members = np.full(items.shape, -1, dtype=np.int64)
    fused.flat[at] = sums
    members.flat[at] = item.flat[at]
    return members, fused
