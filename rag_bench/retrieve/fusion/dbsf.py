"""Distribution-based score fusion (``retrieval.fusion=dbsf``): each list's scores mapped by mean +- 3 std.

norm(s) = (s - (mean - 3 std)) / (6 std) per list and question, over the candidates the list holds
(population std; a list whose scores are all equal gives each candidate 0.5, the mean's place);
fused(c) = sum_i w_i * norm_i(c), a list that does not hold c adding 0 (its lower bound, mean - 3 std).
Mazzeschi, "Distribution-based Score Fusion (DBSF)", 2023; Qdrant's ``Fusion.DBSF`` (sum of the
normalised scores, no clipping).
Example: scores (3, 2, 1): mean 2, std sqrt(2/3) = 0.8165, so 3 -> (3 - 2 + 2.449) / 4.899 = 0.704.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag_bench.retrieve.fusion.combine import Run, row_stats, score_fusion


def distribution(scores: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    _, _, mean, std = row_stats(scores, valid)
    flat = std[:, None] == 0
    norm = np.where(flat, 0.5, (scores - mean[:, None] + 3 * std[:, None]) / np.where(flat, 1.0, 6 * std[:, None]))
    return norm, np.zeros(len(scores))


def dbsf(runs: Sequence[Run], weights: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Fused (n_queries, sum of depths) indices and scores of ``runs`` ((indices, scores) pairs), best first."""
    return score_fusion(runs, weights, distribution)
