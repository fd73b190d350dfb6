"""The one tie rule, and how it survives a TREC run file.

Every list rag-bench ranks puts the higher score first and, among equal scores, the chunk that comes
first in corpus order (``index/topk.py``, fusion, rerankers, every index). A list's order is then the
ranking: every metric reads it as it is, and a document ranks where its first chunk ranks (nothing
re-sorts tied documents afterwards). A list read from elsewhere (a run file, a service, a function)
keeps the order it was read in.

trec_eval (and pytrec_eval, trec_eval 9.0.x) order a question's entries by score descending, then
docno descending, comparing scores as float32 (its ``sim`` field is a C float). So that a file means
the same ranking to every reader:
- ``trec_scores``: the scores rag-bench writes are strictly decreasing *as float32*, each the float32
  nearest its score, lowered by the fewest float32 steps needed (a 1-ulp float64 nudge vanishes in
  float32, and trec_eval would reorder the tie by docno);
- ``trec_order``: reading a TREC file, rag-bench orders each question as trec_eval does (float32 score
  descending, then docno descending), so a file scores the same in rag-bench and in pytrec_eval, and a
  file rag-bench wrote reads back as the ranking it wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

import numpy as np

_MAX_KEY = 0x7F7FFFFF  # key of the largest finite float32 (3.4028235e38)
_LARGEST = float(np.finfo(np.float32).max)
Item = TypeVar("Item")


def float32(value: float) -> float:
    """``value`` as trec_eval holds it: rounded to float32 (beyond float32's range: +-inf)."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


def trec_order(entries: Iterable[tuple[str, float, Item]]) -> list[tuple[str, float, Item]]:
    """``(docno, score, item)`` entries of one question in trec_eval's order: float32 score descending, then docno
    descending (code point order, which is UTF-8 byte order, as trec_eval's strcmp)."""
    return sorted(entries, key=lambda entry: (float32(entry[1]), entry[0]), reverse=True)


def trec_scores(scores: Sequence[float] | np.ndarray) -> list[float]:
    """A ranking's scores, best first, as strictly decreasing float32 values (returned as exact floats).

    With k(x) the float32 x's position in float32 order (adjacent values differ by 1; -0.0 and 0.0 share 0)
    and f_i the float32 nearest s_i (finite scores beyond float32's range are clipped to it):
    k(w_1) = k(f_1), k(w_i) = min(k(f_i), k(w_{i-1}) - 1); a non-finite s_i (below a reranker's depth)
    takes k(w_{i-1}) - 1, and a non-finite s_1 is written 0. So w_i = f_i wherever the scores were
    already strictly decreasing in float32, and trec_eval, pytrec_eval and ``trec_order`` all read the
    entries back in the order given. Example: [2.0, 1.0, 1.0] -> [2.0, 1.0, 0.99999994].
    """
    values = np.asarray(scores, dtype=np.float64)
    if values.size == 0:
        return []
    finite = np.isfinite(values)
    keys = _keys(np.where(finite, values, 0.0))  # (n,) int64
    at = np.arange(values.size)
    reach = np.where(finite | (at == 0), keys + at, np.iinfo(np.int64).max)  # k(f_i) + i; the first is 0 if not finite
    written = np.maximum(np.minimum.accumulate(reach) - at, -_MAX_KEY)  # k(w_i) = min_{j <= i}(k(f_j) + j) - i
    return _values(written).tolist()


def trec_score_rows(scores: np.ndarray) -> np.ndarray:
    """``trec_scores`` of every row of (n, width) ``scores`` at once, as float64: the first m entries of row i
    equal ``trec_scores(scores[i, :m])`` for every m (each entry depends only on the ones before it)."""
    values = np.asarray(scores, dtype=np.float64)
    if values.size == 0:
        return values.copy()
    finite = np.isfinite(values)
    keys = _keys(np.where(finite, values, 0.0))  # (n, width) int64
    at = np.arange(values.shape[1])
    reach = np.where(finite | (at == 0), keys + at, np.iinfo(np.int64).max)
    written = np.maximum(np.minimum.accumulate(reach, axis=1) - at, -_MAX_KEY)
    return _values(written)


def _keys(values: np.ndarray) -> np.ndarray:
    """(n,) int64 position of each value's nearest float32 in float32 order (finite values only)."""
    bits = np.clip(values, -_LARGEST, _LARGEST).astype(np.float32).view(np.int32).astype(np.int64)
    return np.where(bits >= 0, bits, -(bits & 0x7FFFFFFF))


def _values(keys: np.ndarray) -> np.ndarray:
    """(n,) float64: the float32 values at ``keys`` (the inverse of ``_keys``)."""
    bits = np.where(keys >= 0, keys, -keys | 0x80000000).astype(np.uint32)
    return bits.view(np.float32).astype(np.float64)
