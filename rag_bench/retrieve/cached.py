"""Candidate lists through the disk cache, keyed in one place.

key = sha256("candidates", retriever.cache_key(), queries (id, text, input type, filter), depth): a retriever
names what its lists depend on (``Keyed``: its settings, the corpus's key, the embedder ...), and the
cache adds the queries and the depth, and the documents' metadata when a query is filtered.
A hit skips the index build and every embedding.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.types import Chunk
from rag_bench.retrieve.base import Candidates, Corpus, Keyed, Query, RetrievalStats, Retriever

REUSED_NOTE = "-- reused from the candidate cache: nothing below ran in this run; it ran when the list was computed"


@dataclass(frozen=True)
class _Stored:
    """A cached list: the corpus's chunks are not stored again (``chunks`` None), a retriever's own are."""

    indices: np.ndarray
    scores: np.ndarray
    stats: RetrievalStats
    chunks: Sequence[Chunk] | None


class CachedRetriever:
    """``inner``'s lists, computed once per (cache key, questions, depth) and then read back."""

    def __init__(self, inner: Retriever, cache: DiskCache, corpus: Corpus) -> None:
        self.inner, self.cache, self.corpus = inner, cache, corpus
        self.name = inner.name

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        start = time.perf_counter()
        asked = [(q.id, q.text, q.input_type) + ((q.filter.source,) if q.filter else ()) for q in queries]
        parts = ["candidates", self.inner.cache_key(), asked, depth]
        if any(q.filter is not None for q in queries):  # only then: the metadata digest of 50k documents takes 0.25 s
            parts.append(self.corpus.metadata_key)
        key = digest(*parts)
        stored, reused = self.cache.get_or_compute("candidates", key, lambda: self._compute(queries, depth))
        stats = stored.stats
        if reused:  # nothing was embedded or looked up this time; an index's log is from when the list was made
            files = {name: f"{REUSED_NOTE}\n{text}" for name, text in stats.files.items()}
            stats = replace(stats, embedded=0, cache_hits=0, reused=True, files=files)
        stats = replace(stats, seconds=time.perf_counter() - start, keyed=True)
        chunks = self.corpus.chunks if stored.chunks is None else stored.chunks
        return Candidates(chunks, stored.indices, stored.scores, stats)

    def _compute(self, queries: Sequence[Query], depth: int) -> _Stored:
        found = self.inner.retrieve(queries, depth)
        own = None if found.chunks is self.corpus.chunks else list(found.chunks)
        return _Stored(found.indices, found.scores, found.stats, own)


def cached(retriever: Retriever, cache: DiskCache, corpus: Corpus) -> Retriever:
    """``retriever`` behind the candidate cache when it is ``Keyed``, else itself (timed by its caller)."""
    return CachedRetriever(retriever, cache, corpus) if isinstance(retriever, Keyed) else retriever
