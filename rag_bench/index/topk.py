"""Deterministic top-k selection: higher score first, then lower index (corpus order)."""

from __future__ import annotations

import numpy as np


def top_k(scores: np.ndarray, depth: int, valid: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Best ``depth`` entries of each row of ``scores`` (n_queries, n_items).

    Ties break by item index, ascending, so the result never depends on the sort
    algorithm. ``valid`` (same shape, bool) masks items that may not be returned.
    Returns ``(indices, values)``, both (n_queries, depth); rows with fewer valid
    items are padded with index -1 and value -inf.
    """
    scores = np.asarray(scores)
    n_queries, n_items = scores.shape
    indices = np.full((n_queries, depth), -1, dtype=np.int64)
    values = np.full((n_queries, depth), -np.inf, dtype=np.float64)
    for row in range(n_queries):
        idx, val = top_k_row(scores[row], depth, None if valid is None else valid[row])
        indices[row, : len(idx)] = idx
        values[row, : len(idx)] = val
    return indices, values


def top_k_row(row: np.ndarray, depth: int, valid: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top ``depth`` of one score vector: (indices, values), at most ``depth`` long."""
    candidates = np.arange(row.shape[0]) if valid is None else np.flatnonzero(valid)
    cand_scores = row[candidates]
    if depth <= 0 or candidates.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.float64)
    if candidates.size > depth:
        # Keep every item tied with the depth-th best, so the tie-break below sees them all.
        threshold = np.partition(cand_scores, candidates.size - depth)[candidates.size - depth]
        keep = cand_scores >= threshold
        candidates, cand_scores = candidates[keep], cand_scores[keep]
    order = np.lexsort((candidates, -cand_scores))[:depth]
    return candidates[order].astype(np.int64), cand_scores[order].astype(np.float64)
