"""Rerankers by config name (``reranker=none``); ``none`` keeps the fused order."""

from __future__ import annotations

from collections.abc import Callable

from rag_bench.rerank.base import Reranker


def _fake(cfg) -> Reranker:
    from rag_bench.testing import FakeReranker

    return FakeReranker()


RERANKERS: dict[str, Callable[..., Reranker] | None] = {"none": None, "fake": _fake}


def build_reranker(cfg) -> Reranker | None:
    """The reranker named by ``cfg.name`` (a ``RerankerConfig``), or None for ``none``."""
    factory = RERANKERS[cfg.name]
    return None if factory is None else factory(cfg)
