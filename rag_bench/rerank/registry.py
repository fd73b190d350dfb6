"""Rerankers by config name (``reranker=none|voyage|maxsim|fake``); ``none`` keeps the fused order.

A factory is called as ``factory(cfg, cache)``: ``cfg`` a ``RerankerConfig``, ``cache`` the run's
``DiskCache`` (or None: the default cache folder) for rerankers that keep scores or vectors.
"""

from __future__ import annotations

from collections.abc import Callable

from rag_bench.cache import DiskCache
from rag_bench.rerank.base import Reranker


def _fake(cfg, cache: DiskCache | None = None) -> Reranker:
    from rag_bench.testing import FakeReranker

    return FakeReranker()


def _voyage(cfg, cache: DiskCache | None = None) -> Reranker:
    from rag_bench.rerank.voyage import build

    return build(cfg, cache)


def _maxsim(cfg, cache: DiskCache | None = None) -> Reranker:
    from rag_bench.rerank.maxsim import build

    return build(cfg, cache)


RERANKERS: dict[str, Callable[..., Reranker] | None] = {
    "none": None,
    "voyage": _voyage,
    "maxsim": _maxsim,
    "fake": _fake,
}


def build_reranker(cfg, cache: DiskCache | None = None) -> Reranker | None:
    """The reranker named by ``cfg.name`` (a ``RerankerConfig``), or None for ``none``."""
    factory = RERANKERS[cfg.name]
    return None if factory is None else factory(cfg, cache)
