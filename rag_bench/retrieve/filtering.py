"""How questions' filters reach a retriever (``retrieval.filter_mode``), one wrapper per mode.

- ``pre`` (default): the retriever applies each query's filter inside its index (exact and
  BM25 mask before top-k, HNSW searches with a selector, pgvector a SQL WHERE, Chroma ``where``);
- ``post``: the retriever is asked for ``depth`` candidates with no filter, and those the
  filter forbids are dropped afterwards, so a list may come back shorter (what many services do);
- ``none``: filters are ignored, to measure what would leak (``leak@k``).

A fusion's children are wrapped one by one, so ``post`` drops from each first-stage list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.core.filters import MetadataTable
from rag_bench.retrieve.base import Candidates, Corpus, Query, Retriever


def unfiltered(queries: Sequence[Query]) -> list[Query]:
    return [replace(q, filter=None) if q.filter is not None else q for q in queries]


class PreFilter:
    """The retriever itself, which must apply filters inside its index (else a ConfigError)."""

    def __init__(self, inner: Retriever, applies: bool) -> None:
        self.inner, self.applies, self.name = inner, applies, inner.name

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        if not self.applies and any(q.filter is not None for q in queries):
            raise ConfigError(
                f"retrieval {self.name!r} cannot apply questions' filters inside its index; "
                "use retrieval.filter_mode=post (drop forbidden candidates afterwards) or none"
            )
        return self.inner.retrieve(queries, depth)


class NoFilter:
    """Ignore every filter (``leak@k`` then says what the filters would have kept out)."""

    def __init__(self, inner: Retriever, corpus: Corpus) -> None:
        self.inner, self.name = inner, inner.name

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        return self.inner.retrieve(unfiltered(queries), depth)


class PostFilter:
    """Retrieve ``depth`` unfiltered candidates, then drop those each query's filter forbids."""

    def __init__(self, inner: Retriever, corpus: Corpus) -> None:
        self.inner, self.corpus, self.name = inner, corpus, inner.name

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        found = self.inner.retrieve(unfiltered(queries), depth)
        if all(q.filter is None for q in queries):
            return found
        table = self._table(found)
        indices = np.full_like(found.indices, -1)  # (n_queries, width), kept candidates moved to the front
        scores = np.full_like(found.scores, -np.inf)
        for q, query in enumerate(queries):
            row = found.indices[q]
            keep = row >= 0
            if query.filter is not None:
                keep &= table.mask(query.filter)[np.where(keep, row, 0)]
            kept = np.flatnonzero(keep)
            indices[q, : kept.size], scores[q, : kept.size] = row[kept], found.scores[q, kept]
        return Candidates(found.chunks, indices, scores, found.stats, found.parts)

    def _table(self, found: Candidates) -> MetadataTable:
        if found.chunks is self.corpus.chunks:
            return self.corpus.metadata
        return MetadataTable([self.corpus.documents.get(c.doc_id, {}) for c in found.chunks])


MODES: dict[str, Callable[[Retriever, Corpus], Retriever]] = {"post": PostFilter, "none": NoFilter}


def with_filter_mode(retriever: Retriever, mode: str, corpus: Corpus, applies: bool) -> Retriever:
    """``retriever`` behind the wrapper of ``mode``; ``applies``: it can filter inside its index (pre)."""
    return PreFilter(retriever, applies) if mode == "pre" else MODES[mode](retriever, corpus)
