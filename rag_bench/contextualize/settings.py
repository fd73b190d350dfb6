"""Settings of ``rag-bench contextualize``: the verb's schema and one dataclass per context generator."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omegaconf import MISSING

from rag_bench.config.schema import DatasetConfig
from rag_bench.core.errors import ConfigError
from rag_bench.remote.settings import ApiSettings


@dataclass
class ContextGeneratorConfig:
    """Every context generator: its name."""

    name: str = MISSING


@dataclass
class OfflineContextConfig(ContextGeneratorConfig):
    """Deterministic, no model: title, heading trail and the document's most distinctive terms."""

    name: str = "offline"
    terms: int = 8  # distinctive document terms per context

    def __post_init__(self) -> None:
        if self.terms < 0:
            raise ConfigError(f"generator.terms ({self.terms}) must not be negative")


@dataclass
class AnthropicContextConfig(ApiSettings, ContextGeneratorConfig):
    """The Messages API: the whole document in a cached prompt prefix, one short context per chunk."""

    name: str = "anthropic"
    model: str | None = "claude-haiku-4-5"
    max_tokens: int = 160  # reply limit (contexts are asked to be 50 to 100 tokens)
    max_retries: int = 2  # SDK retries of 408/409/429/5xx and connection errors

    def __post_init__(self) -> None:
        self.check_api("generator")
        if self.max_tokens < 1:
            raise ConfigError(f"generator.max_tokens ({self.max_tokens}) must be at least 1")


@dataclass
class ContextualizeConfig:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    chunker: Any = MISSING  # a chunker's settings (chunk/registry.py)
    embedder: Any = MISSING  # an embedder's settings (embed/registry.py)
    generator: Any = MISSING  # a context generator's settings (contextualize/cli.py GENERATORS)
    out: str | None = None  # null = results/contexts/<dataset>-<chunker>-<size><unit>-<generator>.jsonl
    merge: bool = False  # keep the contexts of other chunks already in ``out``
    cache_dir: str | None = None  # null = $RAG_BENCH_CACHE or the user cache folder

    def __post_init__(self) -> None:
        if self.generator == MISSING:  # built in Python: the offline generator
            self.generator = OfflineContextConfig()
