"""Where each chunk a run's page shows in a question's top ``report_k`` ranks in every stage, for all questions at once.

The page lists, per question, the final list's first ``report_k`` chunks with their rank and score in each stage
(``view.py``). Found one chunk at a time, that is 100,000 searches of Python lists at 10,000 questions; here each
stage's (n_questions, depth) matrix is compared with the (n_questions, report_k) top chunks in blocks of rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag_bench.core.distinct import each_distinct

BLOCK = 1 << 20  # comparisons per block of rows: (rows, report_k, depth) booleans, small enough to reuse


def top_rows(final: np.ndarray, k: int) -> np.ndarray:
    """(n, k) int64: each row's first ``k`` chunks of ``final`` ((n, width), -1 padded), -1 where it lists fewer."""
    listed = final >= 0
    order = np.argsort(~listed, axis=1, kind="stable")[:, :k]  # the listed places first, in order
    top = np.take_along_axis(final, order, axis=1).astype(np.int64)
    top[~np.take_along_axis(listed, order, axis=1)] = -1
    if top.shape[1] < k:
        top = np.hstack([top, np.full((len(top), k - top.shape[1]), -1, dtype=np.int64)])
    return top


def stage_places(top: np.ndarray, stages: Sequence[tuple[np.ndarray, np.ndarray]], block: int = BLOCK) -> list:
    """Per question, per chunk of ``top`` ((n, k), -1 padded): its rank in each stage (from 1; the last place
    should a stage list it twice; None where it does not), then its score in each stage (``rounded``; None
    where not listed), as nested lists [question][entry][rank per stage ..., score per stage ...].
    ``stages``: each stage's (indices, scores), (n, depth); ``block``: comparisons at a time."""
    n, k = top.shape
    ranks = np.zeros((n, k, len(stages)), dtype=np.int64)
    scores = np.full((n, k, len(stages)), np.nan)
    for s, (indices, values) in enumerate(stages):
        width, values = indices.shape[1], np.asarray(values, dtype=np.float64)
        step = max(1, block // max(1, k * width))
        for a in range(0, n, step):
            wanted = top[a : a + step, :, None]
            same = (indices[a : a + step, None, ::-1] == wanted) & (wanted >= 0)  # each row read from its end
            found = same.any(axis=2)
            last = width - 1 - same.argmax(axis=2)  # (rows, k): the last place holding the chunk, where found
            ranks[a : a + step, :, s] = np.where(found, last + 1, 0)
            scores[a : a + step, :, s][found] = values[np.nonzero(found)[0] + a, last[found]]
    cells = np.empty((n, k, 2 * len(stages)), dtype=object)
    cells[:, :, : len(stages)] = np.where(ranks > 0, ranks.astype(object), None)
    cells[:, :, len(stages) :] = rounded(scores, ranks > 0)
    return cells.tolist()


def rounded(values: np.ndarray, listed: np.ndarray) -> np.ndarray:
    """Object array: ``float(f"{v:.6g}")`` (6 significant digits, for display) of each finite value where
    ``listed``, None elsewhere; each distinct value converted once."""
    out = np.full(values.shape, None, dtype=object)
    keep = listed & np.isfinite(values)
    out[keep] = each_distinct(values[keep], lambda distinct: [float(f"{v:.6g}") for v in distinct.tolist()])
    return out
