"""Reranker settings, one dataclass per reranker (``reranker=none|maxsim|voyage|fake``)."""

from __future__ import annotations

from dataclasses import dataclass

from omegaconf import MISSING

from rag_bench.core.errors import ConfigError
from rag_bench.remote.settings import ApiSettings


@dataclass
class RerankerConfig:
    """Every reranker: its name."""

    name: str = MISSING


@dataclass
class NoRerankerConfig(RerankerConfig):
    """Keep the fused order."""

    name: str = "none"


@dataclass
class CutRerankerConfig(RerankerConfig):
    """A reranker over the top ``depth`` fused candidates, with the list cut at ``keep`` after it."""

    depth: int = 20  # fused candidates sent to the reranker
    keep: int | None = None  # rank cut-off after reranking; null = keep every candidate

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise ConfigError(f"reranker.depth ({self.depth}) must be at least 1")
        if self.keep is not None and self.keep < 1:
            raise ConfigError(f"reranker.keep ({self.keep}) must be at least 1, or null to keep every candidate")


@dataclass
class MaxSimConfig(CutRerankerConfig):
    """Offline: a candidate scores its best sentence's cosine to the question."""

    name: str = "maxsim"
    model: str = "local"  # the embedder for sentences: local (all-MiniLM-L6-v2) or fake


@dataclass
class FakeRerankerConfig(CutRerankerConfig):
    """Word overlap with the question (``rag_bench.testing.FakeReranker``), for tests."""

    name: str = "fake"


@dataclass
class VoyageRerankerConfig(ApiSettings, CutRerankerConfig):
    """Voyage AI reranker (needs VOYAGE_API_KEY); scores cached per (model, question, passage)."""

    name: str = "voyage"
    model: str = "rerank-2.5"  # or rerank-2.5-lite; others by name

    def __post_init__(self) -> None:
        CutRerankerConfig.__post_init__(self)
        self.check_api("reranker")
