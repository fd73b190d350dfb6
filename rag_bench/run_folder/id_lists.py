"""Columns of chunk-id lists (``top_chunks``, ``ranked_chunks``) kept as indices into a table of ids.

At 10,000 questions such a column holds a million chunk ids. Held as Python lists, each id is a separate
string to make, to turn into JSON text for the CSV and to convert into an Arrow string for the Parquet file.
Here a column is the table of distinct ids once and, per row, the indices of its items (``flat``, sliced by
``offsets``): the CSV field of a row is joined from each id's field piece, made once per id, and the Arrow
list array takes its items from one Arrow array of the ids.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import pyarrow as pa

from rag_bench.core.types import Chunk


@dataclass(frozen=True)
class IdLists:
    """Row ``i`` is ``[ids[j] for j in flat[offsets[i]:offsets[i + 1]]]``."""

    ids: list[str]
    flat: np.ndarray  # (n_items,) int64 indices into ids
    offsets: np.ndarray  # (n_rows + 1,) int64, offsets[0] = 0

    @classmethod
    def of_ranked(cls, chunks: Sequence[Chunk], ranked: np.ndarray) -> IdLists:
        """Each row's chunks of ``ranked`` ((n, width) int, -1 padded) in order, the -1 left out; the id of
        each chunk listed made once."""
        listed = ranked >= 0
        offsets = np.zeros(len(ranked) + 1, dtype=np.int64)
        np.cumsum(listed.sum(axis=1), out=offsets[1:])
        flat = ranked[listed].astype(np.int64)
        present = np.zeros(len(chunks), dtype=bool)
        present[flat] = True
        slot = np.cumsum(present) - 1  # chunk index -> its place among the chunks listed
        return cls([chunks[c].id for c in np.flatnonzero(present).tolist()], slot[flat], offsets)

    @classmethod
    def of_cells(cls, cells: list) -> IdLists | None:
        """The lists of text in ``cells``, or None when a cell is not a list or an item is not text."""
        if not all(type(cell) is list for cell in cells):
            return None
        items = list(chain.from_iterable(cells))
        if not all(type(item) is str for item in items):
            return None
        slots = {item: at for at, item in enumerate(dict.fromkeys(items))}  # each distinct id, first seen first
        offsets = np.zeros(len(cells) + 1, dtype=np.int64)
        np.cumsum([len(cell) for cell in cells], out=offsets[1:])
        return cls(list(slots), np.array(list(map(slots.__getitem__, items)), dtype=np.int64), offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def lists(self) -> list[list[str]]:
        """The rows as Python lists of ids."""
        items, at = np.array(self.ids, dtype=object)[self.flat].tolist(), self.offsets.tolist()
        return [items[a:b] for a, b in zip(at[:-1], at[1:], strict=True)]

    def json_texts(self) -> list[str]:
        """Each row as ``json.dumps`` writes the list."""
        return self._joined([json.dumps(i) for i in self.ids], "[", "]")

    def csv_fields(self) -> list[str]:
        """Each row's JSON text as the csv module writes the field (minimal quoting: a list of one or more ids
        holds quotes, so it is quoted and its quotes doubled; ``[]`` is left as it is)."""
        return self._joined([json.dumps(i).replace('"', '""') for i in self.ids], '"[', ']"')

    def _joined(self, pieces: list[str], start: str, end: str) -> list[str]:
        items, at = np.array(pieces, dtype=object)[self.flat].tolist(), self.offsets.tolist()
        return [f"{start}{', '.join(items[a:b])}{end}" if b > a else "[]" for a, b in zip(at[:-1], at[1:], strict=True)]

    def arrow(self) -> pa.ListArray:
        """The rows as an Arrow list<string> array, as ``pa.array`` makes of the lists."""
        items = pa.array(self.ids, type=pa.string()).take(pa.array(self.flat))
        return pa.ListArray.from_arrays(pa.array(self.offsets.astype(np.int32)), items)
