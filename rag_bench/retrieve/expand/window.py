"""``expand=window``: return each hit chunk with ``expand.size`` neighbouring chunks on each side.

The unit is the span from the first to the last chunk of the window, within the chunk's document:
chunk i of a document with chunks 0..n-1 returns chunks max(0, i - size) .. min(n - 1, i + size) as
one span. With one-sentence chunks (``chunker=sentence`` and a small ``chunker.size``) this is the
sentence window (LlamaIndex's SentenceWindowNodeParser). Equal windows are returned once, where the
first ranked; overlapping windows are returned as they are. A retriever's own chunks (not the corpus's)
have no neighbours and are returned as they are. ``size`` 0 returns the chunks themselves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.retrieve.base import Candidates, Corpus, RetrievalStats
from rag_bench.retrieve.expand.base import STAGE, ExpandConfig, on_corpus
from rag_bench.retrieve.expand.levels import chunk_spans
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import UnitTable, compact, first_in_row


@dataclass
class WindowConfig(ExpandConfig):
    name: str = "window"
    size: int = 1  # neighbouring chunks on each side

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ConfigError(f"expand.size ({self.size}) must be 0 or more neighbouring chunks on each side, e.g. 1")


class WindowExpander:
    """Each candidate widened to its window of neighbouring corpus chunks."""

    stage = STAGE

    def __init__(self, size: int, corpus: Corpus, documents: dict) -> None:
        self.size, self.corpus, self.documents = size, corpus, documents
        chunks = corpus.chunks
        n = len(chunks)
        number = {d: i for i, d in enumerate(dict.fromkeys(map(attrgetter("doc_id"), chunks)))}
        self.doc_ids = list(number)
        self.doc_of, self.chunk_start, ends = chunk_spans(chunks, number)
        change = np.r_[True, self.doc_of[1:] != self.doc_of[:-1]] if n else np.zeros(0, bool)
        group = np.cumsum(change) - 1
        firsts = np.flatnonzero(change)
        lasts = np.r_[firsts[1:] - 1, n - 1] if n else firsts
        at = np.arange(n)
        self.lo = np.maximum(firsts[group], at - size) if n else at  # (n_chunks,) first and last chunk of each window
        self.hi = np.minimum(lasts[group], at + size) if n else at
        self.chunk_end = ends
        self.end = ends.copy()
        for shift in range(1, size + 1):  # the window's end: the largest end of all its chunks, before and after
            self.end = np.maximum(self.end, np.where(at + shift <= self.hi, ends[np.minimum(at + shift, n - 1)], 0))
            self.end = np.maximum(self.end, np.where(at - shift >= self.lo, ends[np.maximum(at - shift, 0)], 0))
        self.start = self.chunk_start[self.lo] if n else at

    def apply(self, found: Candidates) -> Candidates:
        start = time.perf_counter()
        positions = on_corpus(found, self.corpus)  # (n, width) corpus index, -1: padding or not the corpus's
        valid = found.indices >= 0
        n_chunks = len(self.corpus.chunks)
        at = np.maximum(positions, 0)
        window = self.lo[at] * (n_chunks + 1) + self.hi[at]  # one key per distinct window
        foreign = (positions < 0) & valid
        key = np.where(foreign, (n_chunks + 1) ** 2 + np.where(valid, found.indices, 0), window)
        keep = first_in_row(np.where(valid, key, -1))
        table = UnitTable(found.chunks, self.documents)
        units = found.indices.copy()
        widened = keep & ~foreign
        chunk = positions[widened]  # row by row, as the units are added to the table
        base = (self.doc_of, self.chunk_start, self.chunk_end) if found.chunks is self.corpus.chunks else None
        units[widened] = table.index_spans(self.doc_ids, self.doc_of[chunk], self.start[chunk], self.end[chunk], base)
        indices, values = compact(units, found.scores, keep)
        details = {"units": len(table.added), "kept_as_searched": int((keep & foreign).sum())}
        stats = RetrievalStats(seconds=time.perf_counter() - start, details=details)
        return Candidates(table.chunks(), indices, values, stats)


def build(cfg: WindowConfig, resources: Resources) -> WindowExpander:
    return WindowExpander(cfg.size, resources.corpus, {d.id: d for d in resources.dataset.documents})
