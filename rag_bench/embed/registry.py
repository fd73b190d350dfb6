"""Embedders by config name (``embedder=local|voyage|fake``): each one's settings schema and builder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rag_bench.core.options import settings_of
from rag_bench.embed.base import Embedder
from rag_bench.embed.settings import EmbedderConfig, FakeConfig, LocalConfig, VoyageConfig


def _local(cfg: LocalConfig) -> Embedder:
    from rag_bench.embed.local import MiniLMEmbedder

    return MiniLMEmbedder()


def _fake(cfg: FakeConfig) -> Embedder:
    from rag_bench.embed.fake import FakeEmbedder

    return FakeEmbedder(cfg.dimension or 64)


def _voyage(cfg: VoyageConfig) -> Embedder:
    from rag_bench.embed.voyage import build

    return build(cfg)


@dataclass(frozen=True)
class EmbedderEntry:
    schema: type[EmbedderConfig]
    build: Callable[[EmbedderConfig], Embedder]


EMBEDDERS: dict[str, EmbedderEntry] = {
    "local": EmbedderEntry(LocalConfig, _local),
    "voyage": EmbedderEntry(VoyageConfig, _voyage),
    "fake": EmbedderEntry(FakeConfig, _fake),
}


def embedder_config(name: str, **settings) -> EmbedderConfig:
    """The checked settings of embedder ``name`` (its schema's defaults, then ``settings``)."""
    return settings_of("embedder", name, EMBEDDERS, settings)


def build_embedder(cfg: EmbedderConfig) -> Embedder:
    """The embedder ``cfg`` describes."""
    return EMBEDDERS[cfg.name].build(cfg)
