"""Work reused across runs: in memory within one process, on disk across processes.

A Hydra sweep on the basic launcher runs every point in one process, so the loaded
dataset, embedder sessions, vector stores and BM25 indexes are kept here between
points; everything expensive is also in the disk cache, so parallel launchers and
later runs reuse it too (DESIGN section 5).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from rag_bench.core.cache import DiskCache, cache_root

T = TypeVar("T")
KEEP = 8  # large objects (indexes) kept per kind


@dataclass
class Tally:
    """Texts embedded through the cache by every store that shares it (a workspace's stores, every stage)."""

    embedded: int = 0


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
