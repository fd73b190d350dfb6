"""Rerankers by config name (``reranker=none|voyage|maxsim|fake``); ``none`` keeps the fused order.

A builder is called as ``build(cfg, ws)``: ``cfg`` the reranker's settings, ``ws`` the run's
``Workspace`` (its disk cache and vector stores) for rerankers that keep scores or vectors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rag_bench.core.options import settings_of
from rag_bench.core.workspace import Workspace
from rag_bench.rerank.base import Reranker
from rag_bench.rerank.settings import (
    FakeRerankerConfig,
    MaxSimConfig,
    NoRerankerConfig,
    RerankerConfig,
    VoyageRerankerConfig,
)


def _fake(cfg, ws: Workspace) -> Reranker:
    from rag_bench.rerank.fake import FakeReranker

    return FakeReranker()


def _voyage(cfg, ws: Workspace) -> Reranker:
    from rag_bench.rerank.voyage import build

    return build(cfg, ws.cache)


def _maxsim(cfg, ws: Workspace) -> Reranker:
    from rag_bench.rerank.maxsim import build

    return build(cfg, ws)


@dataclass(frozen=True)
class RerankerEntry:
    schema: type[RerankerConfig]
    build: Callable[..., Reranker] | None  # None: no reranking


RERANKERS: dict[str, RerankerEntry] = {
    "none": RerankerEntry(NoRerankerConfig, None),
    "voyage": RerankerEntry(VoyageRerankerConfig, _voyage),
    "maxsim": RerankerEntry(MaxSimConfig, _maxsim),
    "fake": RerankerEntry(FakeRerankerConfig, _fake),
}


def reranker_config(name: str, **settings) -> RerankerConfig:
    """The checked settings of reranker ``name`` (its schema's defaults, then ``settings``)."""
    return settings_of("reranker", name, RERANKERS, settings)


def build_reranker(cfg: RerankerConfig, ws: Workspace) -> Reranker | None:
    """The reranker ``cfg`` describes, or None for ``none``."""
    build = RERANKERS[cfg.name].build
    return None if build is None else build(cfg, ws)
