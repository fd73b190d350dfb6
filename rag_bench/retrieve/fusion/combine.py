"""Score fusion's shared step: per-list normalised scores summed per item, best first.

fused(c) = sum_i w_i * norm_i(c) over the lists i; a list that does not hold c gives it that list's
``absent`` value (the normalisation says which: its lowest normalised score, or 0). Each list is
normalised over its own valid entries of one question (``convex.py``, ``dbsf.py``). Equal fused
scores break by item index (corpus order), as in ``rrf.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

# (scores (n, d), valid (n, d) bool) -> (normalised (n, d), absent (n,)): what each item of a row's list
# scores, and what an item the list does not hold scores
Normalise = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
Run = tuple[np.ndarray, np.ndarray]  # (n_queries, depth) item indices (-1 padded) and their scores


def score_fusion(runs: Sequence[Run], weights: Sequence[float], normalise: Normalise) -> tuple[np.ndarray, np.ndarray]:
    """(n_queries, sum of depths) fused indices and scores, -1 / -inf padded, best first."""
    n = runs[0][0].shape[0]
    base = np.zeros(n)  # sum_i w_i * absent_i: what an item held by no list would score
    items, values = [], []
    for (indices, scores), weight in zip(runs, weights, strict=True):
        valid = indices >= 0
        norm, absent = normalise(np.where(valid, scores, 0.0).astype(np.float64), valid)
        base += weight * absent
        items.append(indices.astype(np.int64))
        values.append(np.where(valid, weight * (norm - absent[:, None]), 0.0))
    return combine(np.concatenate(items, axis=1), np.concatenate(values, axis=1), base)


def combine(items: np.ndarray, values: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's distinct items (>= 0) scored ``base[row]`` + the sum of their entries' ``values``.

    Returns (n, width) indices and scores, best first, equal scores by item index, -1 / -inf padded.
    Entries of one item are added in column order (list order), so the sums do not depend on the sort.
    """
    n, width = items.shape
    out_idx = np.full((n, width), -1, dtype=np.int64)
    out_val = np.full((n, width), -np.inf)
    if n == 0 or width == 0:
        return out_idx, out_val
    shift = max(int(width - 1).bit_length(), 1)
    key = (items << shift) | np.arange(width)  # item, then column; padding (-1) sorts first
    order = np.argsort(key, axis=1)
    item = np.take_along_axis(items, order, axis=1)
    value = np.take_along_axis(values, order, axis=1)
    valid = item >= 0
    first = valid.copy()  # each group's first entry
    first[:, 1:] &= item[:, 1:] != item[:, :-1]
    group = np.cumsum(first[valid]) - 1
    sums = np.bincount(group, weights=value[valid])
    rows = np.nonzero(first)[0]
    members = item[first]
    fused = base[rows] + sums
    ranked = np.lexsort((members, -fused, rows))  # by row, then score descending, then item
    rows, members, fused = rows[ranked], members[ranked], fused[ranked]
    column = np.arange(len(rows)) - np.searchsorted(rows, rows)  # position within the row
    out_idx[rows, column] = members
    out_val[rows, column] = fused
    return out_idx, out_val


def row_stats(scores: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row over its valid entries: (min, max, mean, population standard deviation); 0 for an empty row."""
    count = valid.sum(axis=1)
    some = count > 0
    low = np.where(some, np.where(valid, scores, np.inf).min(axis=1), 0.0)
    high = np.where(some, np.where(valid, scores, -np.inf).max(axis=1), 0.0)
    mean = np.where(valid, scores, 0.0).sum(axis=1) / np.maximum(count, 1)
    spread = np.where(valid, (scores - mean[:, None]) ** 2, 0.0).sum(axis=1) / np.maximum(count, 1)
    return low, high, mean, np.sqrt(spread)
