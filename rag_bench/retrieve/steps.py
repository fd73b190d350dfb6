"""Post-retrieval steps: a new ranked list made from the retrieved one (``expand=``, ``diversity=``).

A step reads one ``Candidates`` and returns another over the same chunk table, or over that table
extended with new units at its end (``UnitTable``), so every earlier list still indexes the final table
and the report can show each candidate's rank in every stage. Steps run after retrieval (and query
variants), before the reranker; each returns its cost in ``RetrievalStats`` (``seconds``, ``embedded``,
``details``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from rag_bench.core.types import Chunk, Document
from rag_bench.retrieve.base import Candidates


class Step(Protocol):
    """One post-retrieval step; ``stage`` names its list among the run's stages (expanded, diversified)."""

    stage: str

    def apply(self, found: Candidates) -> Candidates: ...


class UnitTable:
    """A chunk table: ``base`` (the retrieved list's table) and units added after it, each span once."""

    def __init__(self, base: Sequence[Chunk], documents: dict[str, Document]) -> None:
        self.base, self.documents = base, documents
        self.added: list[Chunk] = []
        self._at: dict[tuple[str, int, int], int] | None = None

    def index(self, doc_id: str, start: int, end: int) -> int:
        """The table index of span ``doc_id[start:end]``: a chunk of the table, else a new unit of it."""
        if self._at is None:
            self._at = {(c.doc_id, c.start, c.end): i for i, c in enumerate([*self.base, *self.added])}
        key = (doc_id, start, end)
        if key not in self._at:
            self._at[key] = len(self.base) + len(self.added)
            self.added.append(Chunk(doc_id, start, end, self.documents[doc_id].text[start:end]))
        return self._at[key]

    def index_spans(self, names: Sequence[str], doc: np.ndarray, start: np.ndarray, end: np.ndarray, base=None):
        """(n,) int64: ``index`` of each span ``names[doc[i]][start[i]:end[i]]``, in order (new units are added in
        the order of their first span). ``base``: the base table's spans as (doc, start, end) arrays in the
        same numbering of ``names`` (-1: a document not among them), matched by sorting instead of a
        dictionary of the base and a Python step per span."""
        width = int(max(end.max(initial=0), base[2].max(initial=0) if base is not None else 0)) + 1
        if base is None or self._at is not None or self.added or (len(names) + 1) * width * width >= 2**62:
            ids = [names[d] for d in doc.tolist()]
            return np.array(self.index_all(ids, start.tolist(), end.tolist()), dtype=np.int64).reshape(len(doc))
        key = (doc * width + start) * width + end
        base_key = (base[0] * width + base[1]) * width + base[2]  # negative for a document not among names
        order = np.argsort(base_key, kind="stable")
        at = np.searchsorted(base_key[order], key, side="right") - 1  # the last equal span, as index() finds
        hit = (at >= 0) & (base_key[order][np.maximum(at, 0)] == key)
        out = np.empty(len(doc), dtype=np.int64)
        out[hit] = order[at[hit]]
        new = np.flatnonzero(~hit)
        distinct, first, inverse = np.unique(key[new], return_index=True, return_inverse=True)
        by_first = np.argsort(first, kind="stable")
        rank = np.empty(len(distinct), dtype=np.int64)
        rank[by_first] = np.arange(len(distinct))
        out[new] = len(self.base) + rank[inverse.reshape(-1)]
        made = new[first[by_first]]
        texts = [self.documents[n].text for n in names]
        self.added += [
            Chunk(names[d], s, e, texts[d][s:e])
            for d, s, e in zip(doc[made].tolist(), start[made].tolist(), end[made].tolist(), strict=True)
        ]
        return out

    def index_all(self, doc_ids: Sequence[str], starts: Sequence[int], ends: Sequence[int]) -> list[int]:
        """``index`` of each span, in order (so new units are added in this order)."""
        if self._at is None:
            self._at = {(c.doc_id, c.start, c.end): i for i, c in enumerate([*self.base, *self.added])}
        at, added, documents, out = self._at, self.added, self.documents, []
        for key in zip(doc_ids, starts, ends, strict=True):
            found = at.get(key)
            if found is None:
                doc, start, end = key
                found = at[key] = len(self.base) + len(added)
                added.append(Chunk(doc, start, end, documents[doc].text[start:end]))
            out.append(found)
        return out

    def chunks(self) -> Sequence[Chunk]:
        """The table: ``base`` itself when nothing was added (so lists stay on the corpus), else base + units."""
        return self.base if not self.added else [*self.base, *self.added]


def pack(rows: Sequence[Sequence[int]], scores: Sequence[Sequence[float]], width: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-question lists as (n, width) int64 indices and float64 scores, -1 / -inf padded."""
    indices = np.full((len(rows), width), -1, dtype=np.int64)
    values = np.full((len(rows), width), -np.inf)
    for q, (row, row_scores) in enumerate(zip(rows, scores, strict=True)):
        indices[q, : len(row)] = row
        values[q, : len(row)] = row_scores
    return indices, values


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-d array, ascending: ``np.unique(values)`` by a sort (numpy 2's hash-based
    ``unique`` takes milliseconds where the sort takes a fraction of one on a list of lists' entries)."""
    ordered = np.sort(values, axis=None)
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered


def first_in_row(keys: np.ndarray) -> np.ndarray:
    """(n, w) bool: True at the first entry of each key in its row; keys < 0 (padding) are never kept.

    Example: [[5, 3, 5, -1]] -> [[True, True, False, False]].
    """
    n, width = keys.shape
    keep = np.zeros(keys.shape, dtype=bool)
    valid = keys >= 0
    if not valid.any():
        return keep
    span = int(keys.max()) + 1
    flat = np.flatnonzero(valid)  # row-major positions: earlier columns first within a row
    _, first = np.unique((flat // width) * span + keys.flat[flat], return_index=True)
    keep.flat[flat[first]] = True
    return keep


def compact(indices: np.ndarray, scores: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's kept entries moved to its front in their order; -1 / -inf after them."""
    out_idx = np.full(indices.shape, -1, dtype=np.int64)
    out_val = np.full(scores.shape, -np.inf)
    rows, columns = np.nonzero(keep)
    position = np.cumsum(keep, axis=1)[rows, columns] - 1
    out_idx[rows, position] = indices[rows, columns]
    out_val[rows, position] = scores[rows, columns]
    return out_idx, out_val


def mean_chars(found: Candidates, k: int) -> float:
    """Mean over questions of the source characters in the top ``k`` of ``found`` (what a context would hold)."""
    if len(found.indices) == 0:
        return 0.0
    lengths = np.array([len(c) for c in found.chunks] + [0], dtype=np.int64)  # the last slot: padding (-1)
    return float(lengths[found.indices[:, :k]].sum(axis=1).mean())
