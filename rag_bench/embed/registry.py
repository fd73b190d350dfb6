"""Embedders by config name (``embedder=local|voyage|fake``)."""

from __future__ import annotations

from collections.abc import Callable

from rag_bench.embed.base import Embedder


def _local(cfg) -> Embedder:
    from rag_bench.embed.local import MiniLMEmbedder

    return MiniLMEmbedder()


def _fake(cfg) -> Embedder:
    from rag_bench.testing import FakeEmbedder

    return FakeEmbedder(cfg.dimension or 64)


def _voyage(cfg) -> Embedder:
    from rag_bench.embed.voyage import build

    return build(cfg)


EMBEDDERS: dict[str, Callable[..., Embedder]] = {"local": _local, "voyage": _voyage, "fake": _fake}


def build_embedder(cfg) -> Embedder:
    """The embedder named by ``cfg.name`` (an ``EmbedderConfig``)."""
    return EMBEDDERS[cfg.name](cfg)
