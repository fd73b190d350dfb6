"""Deterministic top-k selection: higher score first, then lower index (corpus order).

``top_k`` selects over a whole score matrix with row-wise partition and one sort of the
survivors; ``StreamingTopK`` selects over column blocks as they are produced (dense search
where its C twin in compiled_topk.py was not built),
packing each float32 score and its index into one uint64 key so that a plain integer
partition orders by (score descending, index ascending) with no tie left to chance:
key = sortable(score) << 32 | (2**32 - 1 - index), where sortable() maps float32 bits to
uint32 in float order (negative: all bits flipped; positive: sign bit set). -0.0 is
folded into +0.0 first, as the comparison operators treat them as equal.
Scores must not be NaN.
"""

from __future__ import annotations

import numpy as np

_LOW = np.uint64(0xFFFFFFFF)
_SIGN = np.uint32(0x80000000)


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
    if depth <= 0 or n_queries == 0 or n_items == 0:
        return indices, values
    keep = np.ones(scores.shape, dtype=bool) if valid is None else np.asarray(valid, dtype=bool).copy()
    if n_items > depth:
        # The depth-th best valid score of each row; invalid items are lowered below every value.
        lowest = -np.inf if scores.dtype.kind == "f" else np.iinfo(scores.dtype).min
        filled = scores if valid is None else np.where(keep, scores, lowest)
        threshold = np.partition(filled, n_items - depth, axis=1)[:, n_items - depth]  # (n_queries,)
        full = keep.sum(axis=1) >= depth
        # Keep every valid item tied with the threshold, so the tie-break below sees them all.
        keep &= ~full[:, None] | (scores >= threshold[:, None])
    rows, cols = np.nonzero(keep)  # (n_kept,) each, row-major
    kept = scores[rows, cols]
    order = np.lexsort((cols, -kept, rows))  # by row, then score descending, then index
    rows, cols, kept = rows[order], cols[order], kept[order]
    rank = np.arange(rows.size) - _group_starts(rows, n_queries)[rows]
    take = rank < depth
    indices[rows[take], rank[take]] = cols[take]
    values[rows[take], rank[take]] = kept[take]
    return indices, values


def top_k_row(row: np.ndarray, depth: int, valid: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top ``depth`` of one score vector: (indices, values), at most ``depth`` long."""
    if depth <= 0:
        return np.empty(0, np.int64), np.empty(0, np.float64)
    if valid is None and row.shape[0] > depth:
        # Keep every item tied with the depth-th best, so the tie-break below sees them all.
        threshold = np.partition(row, row.shape[0] - depth)[row.shape[0] - depth]
        candidates = np.flatnonzero(row >= threshold)
        order = np.lexsort((candidates, -row[candidates]))[:depth]
        return candidates[order].astype(np.int64), row[candidates[order]].astype(np.float64)
    candidates = np.arange(row.shape[0]) if valid is None else np.flatnonzero(valid)
    cand_scores = row if valid is None else row[candidates]
    if candidates.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.float64)
    if candidates.size > depth:
        # Keep every item tied with the depth-th best, so the tie-break below sees them all.
        threshold = np.partition(cand_scores, candidates.size - depth)[candidates.size - depth]
        keep = cand_scores >= threshold
        candidates, cand_scores = candidates[keep], cand_scores[keep]
    order = np.lexsort((candidates, -cand_scores))[:depth]
    return candidates[order].astype(np.int64), cand_scores[order].astype(np.float64)


def _group_starts(sorted_rows: np.ndarray, n: int) -> np.ndarray:
    """(n,) index of each row's first entry in ``sorted_rows`` (ascending row numbers)."""
    counts = np.bincount(sorted_rows, minlength=n)
    return np.cumsum(counts) - counts


def pack_keys(scores: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """uint64 keys ordered like (score descending, index ascending); float32 scores, indices < 2**32 - 1."""
    bits = (np.asarray(scores, dtype=np.float32) + np.float32(0)).view(np.uint32)  # -0.0 -> +0.0
    sortable = np.where(bits & _SIGN, ~bits, bits | _SIGN).astype(np.uint64)
    return (sortable << np.uint64(32)) | (_LOW - np.asarray(indices).astype(np.uint64))


def unpack_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int64 indices, float32 scores) of ``pack_keys`` keys; key 0 (empty) gives (-1, -inf)."""
    empty = keys == 0
    sortable = (keys >> np.uint64(32)).astype(np.uint32)
    bits = np.where(sortable & _SIGN, sortable & ~_SIGN, ~sortable)
    scores = np.where(empty, np.float32(-np.inf), bits.view(np.float32))
    indices = np.where(empty, -1, (_LOW - (keys & _LOW)).astype(np.int64))
    return indices, scores


class StreamingTopK:
    """Top ``depth`` of each row over float32 score blocks that arrive in column order.

    Each block keeps only the items that beat the row's current depth-th best (a later
    item equal to it loses the tie, having a higher index), so after the first block the
    per-block work is one comparison pass plus a partition of a few survivors.
    """

    def __init__(self, n_rows: int, depth: int) -> None:
        self.depth = depth
        self.keys = np.zeros((n_rows, depth), dtype=np.uint64)  # (n_rows, depth) best keys, unordered; 0 = empty
        self.floor = np.full(n_rows, -np.inf, dtype=np.float32)  # a score must be >= floor to enter
        self._scratch = np.empty(0, dtype=bool)

    def push(self, block: np.ndarray, first: int) -> None:
        """Offer ``block`` (n_rows, width) float32, whose column j is item ``first + j``."""
        width = block.shape[1]
        if self.depth <= 0 or width == 0:
            return
        floor = self.floor
        if width > self.depth and np.isneginf(floor).any():
            # Rows not yet full: an item outside this block's own top depth can never qualify.
            floor = floor.copy()
            open_rows = np.flatnonzero(np.isneginf(floor))
            unfilled = block if open_rows.size == len(block) else block[open_rows]
            kth = np.partition(unfilled, width - self.depth, axis=1)[:, width - self.depth]
            floor[open_rows] = kth
        at = np.flatnonzero(np.greater_equal(block, floor[:, None], out=self._mask(block.shape)))
        if at.size:
            rows, cols = np.divmod(at, width)  # row-major, so rows ascending
            self._merge(rows, pack_keys(block.ravel()[at], cols + first))

    def _mask(self, shape: tuple[int, int]) -> np.ndarray:
        """A reused bool buffer of ``shape`` (saves a page-faulting allocation per block)."""
        size = shape[0] * shape[1]
        if self._scratch.size < size:
            self._scratch = np.empty(size, dtype=bool)
        return self._scratch[:size].reshape(shape)

    def _merge(self, rows: np.ndarray, new_keys: np.ndarray) -> None:
        """Fold the candidates ``new_keys`` of ``rows`` (ascending) into each row's best keys."""
        starts = np.flatnonzero(np.diff(rows, prepend=-1))  # (n_touched,) first candidate of each row
        touched = rows[starts]
        counts = np.diff(np.append(starts, rows.size))
        width = self.depth + int(counts.max())
        merged = np.zeros((touched.size, width), dtype=np.uint64)  # (n_touched, depth + most candidates)
        merged[:, : self.depth] = self.keys[touched]
        slot = np.repeat(np.arange(touched.size), counts)
        merged[slot, self.depth + np.arange(rows.size) - np.repeat(starts, counts)] = new_keys
        best = np.partition(merged, width - self.depth, axis=1)[:, width - self.depth :]  # best[:, 0] is least
        self.keys[touched] = best
        _, least = unpack_keys(best[:, 0])
        full = best[:, 0] != 0
        self.floor[touched] = np.where(full, np.nextafter(least, np.float32(np.inf)), np.float32(-np.inf))

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """(n_rows, depth) int64 indices and float64 scores, best first, -1/-inf padded."""
        ordered = np.sort(self.keys, axis=1)[:, ::-1]
        indices, scores = unpack_keys(ordered)
        return indices, scores.astype(np.float64)
