"""Embedder settings, one dataclass per embedder (``embedder=local|voyage|fake``)."""

from __future__ import annotations

from dataclasses import dataclass

from omegaconf import MISSING

from rag_bench.core.errors import ConfigError
from rag_bench.remote.settings import ApiSettings


@dataclass
class EmbedderConfig:
    """Every embedder: its name, model and output dimension."""

    name: str = MISSING
    model: str | None = None
    dimension: int | None = None  # null = the model's native dimension

    def __post_init__(self) -> None:
        if self.dimension is not None and self.dimension < 1:
            raise ConfigError(f"embedder.dimension ({self.dimension}) must be positive, or null for native")


@dataclass
class LocalConfig(EmbedderConfig):
    """all-MiniLM-L6-v2, int8 ONNX, on the CPU; no key, no network."""

    name: str = "local"
    model: str | None = "all-MiniLM-L6-v2-int8"


@dataclass
class FakeConfig(EmbedderConfig):
    """Deterministic word hashing (``rag_bench.testing.FakeEmbedder``), for tests and dry runs."""

    name: str = "fake"
    dimension: int | None = 64


@dataclass
class VoyageConfig(ApiSettings, EmbedderConfig):
    """Voyage AI embeddings through the official client (needs VOYAGE_API_KEY)."""

    name: str = "voyage"
    model: str | None = "voyage-3.5"
    dimension: int | None = 1024  # output_dimension; null = the model's default
    batch_size: int = 128  # texts per request (the Voyage API takes at most 1000)
    max_tokens_per_batch: int | None = None  # null = the model's documented limit per request

    def __post_init__(self) -> None:
        EmbedderConfig.__post_init__(self)
        self.check_api("embedder")
        if self.batch_size < 1:
            raise ConfigError(f"embedder.batch_size ({self.batch_size}) must be at least 1")
        if self.batch_size > 1000:
            raise ConfigError(f"embedder.batch_size ({self.batch_size}) must be at most 1000 (the Voyage API limit)")
        if self.max_tokens_per_batch is not None and self.max_tokens_per_batch < 1:
            raise ConfigError(f"embedder.max_tokens_per_batch ({self.max_tokens_per_batch}) must be at least 1")
