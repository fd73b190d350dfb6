"""Post-retrieval steps: a new ranked list made from the retrieved one (``expand=``, ``diversity=``).

A step reads one ``Candidates`` and returns another over the same chunk table, or over that table
extended with new units at its end (``UnitTable``), so every earlier list still indexes the final table
and the report can show each candidate's rank in every stage. Steps run after retrieval (and query
variants), before the reranker; each returns its cost in ``RetrievalStats`` (``seconds``, ``embedded``,
``details``).
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Protocol

import numpy as np

from rag_bench.core.types import Chunk, Document
from rag_bench.retrieve.base import Candidates


class Step(Protocol):
    """One post-retrieval step; ``stage`` names its list among the run's stages (expanded, diversified)."""

    stage: str

    def apply(self, found: Candidates) -> Candidates: ...


class Spans(Sequence[Chunk]):
    """Units given as arrays, each made a ``Chunk`` (its text cut from its document) when first asked for:
    unit i is ``names[doc[i]][start[i]:end[i]]``. A step's lists reach tens of thousands of new units,
    of which a run reads a few (the top k it scores and reports)."""

    def __init__(self, names: Sequence[str], documents: dict[str, Document], doc: np.ndarray, start, end) -> None:
        self.names, self.documents, self.doc, self.start, self.end = names, documents, doc, start, end
        self.made: list[Chunk | None] = [None] * len(doc)

    def __len__(self) -> int:
        return len(self.made)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = range(len(self))[operator.index(i)]  # an IndexError past the end, as a list's
        chunk = self.made[i]
        if chunk is None:
            d, s, e = int(self.doc[i]), int(self.start[i]), int(self.end[i])
            name = self.names[d]
            chunk = self.made[i] = Chunk(name, s, e, self.documents[name].text[s:e])
        return chunk

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # a table, compared by its chunks, as a list is


class Joined(Sequence[Chunk]):
    """``base`` followed by ``added``, without copying either (the table a step returns)."""

    def __init__(self, base: Sequence[Chunk], added: Sequence[Chunk]) -> None:
        self.base, self.added = base, added

    def __len__(self) -> int:
        return len(self.base) + len(self.added)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = range(len(self))[operator.index(i)]
        return self.base[i] if i < len(self.base) else self.added[i - len(self.base)]

    def __iter__(self) -> Iterator[Chunk]:
        return chain(self.base, self.added)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]


class UnitTable:
    """A chunk table: ``base`` (the retrieved list's table) and units added after it, each span once."""

    def __init__(self, base: Sequence[Chunk], documents: dict[str, Document]) -> None:
        self.base, self.documents = base, documents
        self.added: list[Chunk] | Spans = []
        self._at: dict[tuple[str, int, int], int] | None = None

    def _table(self) -> dict[tuple[str, int, int], int]:
        """Each span's table index (the last chunk of equal span), the units added made a list first."""
        if self._at is None:
            self.added = list(self.added)
            self._at = {(c.doc_id, c.start, c.end): i for i, c in enumerate([*self.base, *self.added])}
        return self._at

    def index(self, doc_id: str, start: int, end: int) -> int:
        """The table index of span ``doc_id[start:end]``: a chunk of the table, else a new unit of it."""
        at, key = self._table(), (doc_id, start, end)
        if key not in at:
            at[key] = len(self.base) + len(self.added)
            self.added.append(Chunk(doc_id, start, end, self.documents[doc_id].text[start:end]))
        return at[key]

    def index_spans(self, names: Sequence[str], doc: np.ndarray, start: np.ndarray, end: np.ndarray, base=None):
        """(n,) int64: ``index`` of each span ``names[doc[i]][start[i]:end[i]]``, in order (new units are added in
        the order of their first span). ``base``: the base table's spans as (doc, start, end) arrays in the
        same numbering of ``names`` (-1: a document not among them), matched by sorting instead of a
        dictionary of the base and a Python step per span; the new units are then kept as arrays
        (``Spans``), each made a chunk when first read."""
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
        if len(made):
            self.added = Spans(names, self.documents, doc[made], start[made], end[made])
        return out

    def index_all(self, doc_ids: Sequence[str], starts: Sequence[int], ends: Sequence[int]) -> list[int]:
        """``index`` of each span, in order (so new units are added in this order)."""
        at, documents, out = self._table(), self.documents, []
        added = self.added
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
        return self.base if not self.added else Joined(self.base, self.added)


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
    top = found.indices[:, :k]
    used = distinct(top[top >= 0])  # only these chunks are read (a step's units are made when read)
    lengths = np.zeros(len(found.chunks) + 1, dtype=np.int64)  # the last slot: padding (-1)
    lengths[used] = [len(found.chunks[c]) for c in used.tolist()]
    return float(lengths[top].sum(axis=1).mean())
