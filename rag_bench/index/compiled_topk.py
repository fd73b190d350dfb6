"""The streaming top-k of exact dense search in C (extension ``_topk``, from ``_topk.c``), or numpy's.

``streaming_top_k(n_rows, depth)`` is the one place that decides: a ``CompiledTopK`` when the
extension was compiled at install time (setup.py builds it where a C compiler is present), else
the numpy ``StreamingTopK``. Both take the same score tiles and return the same arrays bit for bit
(tests/index/test_compiled_topk.py): (n_rows, depth) int64 indices and float64 scores, score
descending, then index ascending, padded with -1 / -inf. The C one scans each tile once (one
comparison per score against the row's worst kept item) where numpy needs a partition of the first
tile, a comparison pass writing a mask and a merge: about a tenth of the time over 20,000 chunks.
Tests and benchmarks set ``TOPK`` to None to run the numpy path.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from rag_bench.index.topk import StreamingTopK

try:
    from rag_bench.index import _topk
except ImportError:  # not built: no C compiler at install time, or a copy of the sources without it
    _topk = None

TOPK: ModuleType | None = _topk


def built() -> bool:
    """Whether the extension was built (whatever ``TOPK`` is set to)."""
    return _topk is not None


class CompiledTopK:
    """``StreamingTopK`` in C: top ``depth`` of each row over float32 score tiles arriving in column order."""

    def __init__(self, n_rows: int, depth: int, module: ModuleType) -> None:
        self.depth, self._module = depth, module
        self.heap_scores = np.empty((n_rows, depth), np.float32)  # row r's heap: its first fill[r] entries
        self.heap_index = np.empty((n_rows, depth), np.int64)
        self.fill = np.zeros(n_rows, np.int64)

    def push(self, block: np.ndarray, first: int) -> None:
        """Offer ``block`` (n_rows, width) float32, whose column j is item ``first + j``."""
        block = np.ascontiguousarray(block, dtype=np.float32)
        self._module.push(block, block.shape[1], first, self.heap_scores, self.heap_index, self.fill)

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """(n_rows, depth) int64 indices and float64 scores, best first, -1/-inf padded (once: it empties the heaps)."""
        indices = np.empty(self.heap_index.shape, np.int64)
        scores = np.empty(self.heap_index.shape, np.float64)
        self._module.finish(self.heap_scores, self.heap_index, self.fill, indices, scores)
        return indices, scores


def streaming_top_k(n_rows: int, depth: int) -> CompiledTopK | StreamingTopK:
    """The C streaming top-k where it was built (and ``TOPK`` is set), else numpy's."""
    return StreamingTopK(n_rows, depth) if TOPK is None else CompiledTopK(n_rows, depth, TOPK)
