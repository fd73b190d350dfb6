"""Convex combination of normalised scores: fused(c) = sum_i w_i * norm_i(c) (``retrieval.fusion=convex``).

Normalisations, per list and question, over the candidates the list holds (``retrieval.normalize``):
  minmax   (s - min) / (max - min); a list whose scores are all equal gives each candidate 1
  zscore   (s - mean) / std (population std); all equal gives 0
A candidate a list does not hold scores 0 there under minmax (the list's lowest, unless all are equal),
and the list's lowest z-score under zscore (0 would put it above the list's below-average candidates).
Fox and Shaw, "Combination of Multiple Searches", TREC-2 1994 (CombSUM); Lee,
"Analyses of Multiple Evidence Combination", SIGIR 1997 (min-max); Bruch, Gai and Ingber, "An Analysis
of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023 (convex combination of normalised scores).
Example: BM25 scores (12, 8, 4) and dense (0.9, 0.6) over chunks (a, b, c) and (b, d), weights 1 and 1,
minmax: a = 1 + 0, b = 0.5 + 1, c = 0 + 0, d = 0 + 0; order b, a, c, d (c and d tie: lower index first).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag_bench.retrieve.fusion.combine import Run, row_stats, score_fusion


def minmax(scores: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    low, high, _, _ = row_stats(scores, valid)
    span = high - low
    flat = span[:, None] == 0
    norm = np.where(flat, 1.0, (scores - low[:, None]) / np.where(flat, 1.0, span[:, None]))
    return norm, np.zeros(len(scores))  # absent: 0, the lowest score of a list whose scores differ


def zscore(scores: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    _, _, mean, std = row_stats(scores, valid)
    flat = std[:, None] == 0
    norm = np.where(flat, 0.0, (scores - mean[:, None]) / np.where(flat, 1.0, std[:, None]))
    return norm, _lowest(norm, valid)


def _lowest(norm: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """(n,) each row's lowest normalised score over its valid entries; 0 for an empty row."""
    return np.where(valid.any(axis=1), np.where(valid, norm, np.inf).min(axis=1), 0.0)


NORMALISATIONS = {"minmax": minmax, "zscore": zscore}


def convex(runs: Sequence[Run], weights: Sequence[float], normalize: str = "minmax") -> tuple[np.ndarray, np.ndarray]:
    """Fused (n_queries, sum of depths) indices and scores of ``runs`` ((indices, scores) pairs), best first."""
    return score_fusion(runs, weights, NORMALISATIONS[normalize])
