"""The candidate cache's key: what a list depends on, and nothing it does not (documents' metadata, unfiltered)."""

from __future__ import annotations

import numpy as np

from rag_bench.core.cache import DiskCache
from rag_bench.core.filters import parse_filter
from rag_bench.core.types import Chunk
from rag_bench.retrieve.base import Candidates, Corpus, Query
from rag_bench.retrieve.cached import cached

CHUNKS = [Chunk("a.md", 0, 5, "alpha"), Chunk("b.md", 0, 4, "beta")]


class Counting:
    """A Keyed retriever that ranks every chunk in corpus order and counts its calls."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def cache_key(self) -> tuple:
        return ("counting", "corpus-1")

    def retrieve(self, queries, depth):
        self.calls += 1
        indices = np.tile(np.arange(len(CHUNKS)), (len(queries), 1))
        return Candidates(CHUNKS, indices, np.zeros(indices.shape))


def corpus(acl_of_b: str) -> Corpus:
    return Corpus("corpus-1", CHUNKS, {"a.md": {"acl": "all"}, "b.md": {"acl": acl_of_b}})


def test_unfiltered_lists_ignore_metadata_and_filtered_ones_follow_it(tmp_path):
    cache, inner = DiskCache(tmp_path), Counting()
    plain = [Query("q1", "alpha")]
    filtered = [Query("q1", "alpha", filter=parse_filter({"acl": "all"}))]
    before, after = corpus("hr"), corpus("all")  # b.md's metadata changed between two runs
    cached(inner, cache, before).retrieve(plain, 2)
    cached(inner, cache, after).retrieve(plain, 2)
    assert inner.calls == 1  # the unfiltered list was read back: metadata cannot change it
    assert "metadata_key" not in before.__dict__ and "metadata_key" not in after.__dict__  # never digested
    cached(inner, cache, before).retrieve(filtered, 2)
    cached(inner, cache, before).retrieve(filtered, 2)
    cached(inner, cache, after).retrieve(filtered, 2)
    assert inner.calls == 3  # a filtered list is computed once per metadata
