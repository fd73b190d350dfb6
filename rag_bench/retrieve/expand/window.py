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

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.retrieve.base import Candidates, Corpus, RetrievalStats
from rag_bench.retrieve.expand.base import STAGE, ExpandConfig, on_corpus
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import UnitTable, pack


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
        doc_ids = np.array([c.doc_id for c in chunks], dtype=object)
        change = np.r_[True, doc_ids[1:] != doc_ids[:-1]] if len(chunks) else np.zeros(0, bool)
        group = np.cumsum(change) - 1
        firsts = np.flatnonzero(change)
        lasts = np.r_[firsts[1:] - 1, len(chunks) - 1] if len(chunks) else firsts
        self.first, self.last = firsts[group], lasts[group]  # (n_chunks,) the chunk's document's first and last

    def apply(self, found: Candidates) -> Candidates:
        start = time.perf_counter()
        chunks = self.corpus.chunks
        positions = on_corpus(found, self.corpus).tolist()
        table = UnitTable(found.chunks, self.documents)
        rows, scores, kept = [], [], 0
        for q, (indices, values) in enumerate(zip(found.indices.tolist(), found.scores.tolist(), strict=True)):
            row, row_scores, seen = [], [], set()
            for c, at, score in zip(indices, positions[q], values, strict=True):
                if c < 0:
                    continue
                if at < 0:
                    unit, kept = c, kept + 1
                else:
                    lo, hi = max(self.first[at], at - self.size), min(self.last[at], at + self.size)
                    end = max(chunks[i].end for i in range(lo, hi + 1))
                    unit = table.index(chunks[at].doc_id, chunks[lo].start, end)
                if unit not in seen:
                    seen.add(unit)
                    row.append(unit)
                    row_scores.append(score)
            rows.append(row)
            scores.append(row_scores)
        indices, values = pack(rows, scores, found.indices.shape[1])
        details = {"units": len(table.added), "kept_as_searched": kept}
        return Candidates(
            table.chunks(), indices, values, RetrievalStats(seconds=time.perf_counter() - start, details=details)
        )


def build(cfg: WindowConfig, resources: Resources) -> WindowExpander:
    return WindowExpander(cfg.size, resources.corpus, {d.id: d for d in resources.dataset.documents})
