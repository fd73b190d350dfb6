"""Work reused across runs: in memory within one process, on disk across processes.

A Hydra sweep on the basic launcher runs every point in one process, so the loaded
dataset, embedder sessions, vector stores and BM25 indexes are kept here between
points; everything expensive is also in the disk cache, so parallel launchers and
later runs reuse it too (DESIGN section 5).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from rag_bench.cache import DiskCache, cache_root, digest
from rag_bench.embed.base import Embedder, vector_cache_name
from rag_bench.embed.store import Tally, VectorStore

T = TypeVar("T")
KEEP = 8  # large objects (indexes) kept per kind


class Workspace:
    """In-process memo in front of one disk cache."""

    def __init__(self, cache: DiskCache) -> None:
        self.cache = cache
        self.tally = Tally()  # texts embedded through this workspace's stores (a run counts the difference)
        self._memo: dict[str, OrderedDict[str, object]] = {}

    @classmethod
    def open(cls, cache_dir: str | Path | None) -> Workspace:
        """A new workspace over the cache folder ``cache_dir`` (``None``: the default folder)."""
        return cls(DiskCache(cache_root(cache_dir)))

    def remember(self, kind: str, key: str, build: Callable[[], T]) -> T:
        """The object built for ``key`` earlier in this process, else ``build()`` (kept, LRU)."""
        memo = self._memo.setdefault(kind, OrderedDict())
        if key in memo:
            memo.move_to_end(key)
            return memo[key]  # type: ignore[return-value]
        value = build()
        memo[key] = value
        if len(memo) > KEEP:
            memo.popitem(last=False)
        return value

    def store(self, embedder: Embedder, input_type: str) -> VectorStore:
        """The vector store of an embedder's native vectors (one per process and namespace)."""
        name = vector_cache_name(embedder)
        key = digest(name, embedder.dimension, input_type)
        return self.remember(
            "store", key, lambda: VectorStore(self.cache, name, embedder.dimension, input_type, self.tally)
        )
