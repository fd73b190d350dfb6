"""Generator settings, one dataclass per generator (``generator=extractive|replay|anthropic``)."""

from __future__ import annotations

from dataclasses import dataclass

from omegaconf import MISSING

from rag_bench.core.errors import ConfigError
from rag_bench.remote.settings import ApiSettings


@dataclass
class GeneratorConfig:
    """Every generator: its name."""

    name: str = MISSING


@dataclass
class ExtractiveConfig(GeneratorConfig):
    """Offline baseline: quote the passage sentence holding the largest share of the question's words."""

    name: str = "extractive"
    threshold: float = 0.5  # least share of question words a sentence must hold

    def __post_init__(self) -> None:
        if not 0 < self.threshold <= 1:
            raise ConfigError(f"generator.threshold ({self.threshold}) must lie in (0, 1]")


@dataclass
class ReplayConfig(GeneratorConfig):
    """Answers produced elsewhere, read from a JSONL file."""

    name: str = "replay"
    path: str | None = None  # the JSONL file of answers (required)


@dataclass
class AnthropicGeneratorConfig(ApiSettings, GeneratorConfig):
    """The Anthropic Messages API through the official SDK (ANTHROPIC_API_KEY)."""

    name: str = "anthropic"
    model: str | None = "claude-haiku-4-5"
    max_tokens: int = 512
    temperature: float | None = None  # null = not sent (API version 2026-10-21 rejects it)
    max_retries: int = 2  # SDK retries of 408/409/429/5xx and connection errors

    def __post_init__(self) -> None:
        self.check_api("generator")
        if self.max_tokens < 1:
            raise ConfigError(f"generator.max_tokens ({self.max_tokens}) must be at least 1")
        if not 0 <= self.max_retries <= 10:
            raise ConfigError(f"generator.max_retries ({self.max_retries}) must lie between 0 and 10")
