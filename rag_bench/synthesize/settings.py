"""Settings of ``rag-bench synthesize``: the verb's schema, one dataclass per generator, the checks.

The dataset, chunker and embedder groups are the main ones: the chunker cuts the corpus for
the BM25-alone check, the embedder (query mode, through the vector cache) compares questions
for near-duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omegaconf import MISSING

from rag_bench.config.schema import DatasetConfig
from rag_bench.core.errors import ConfigError
from rag_bench.remote.settings import ApiSettings


@dataclass
class SynthGeneratorConfig:
    """Every candidate generator: its name."""

    name: str = MISSING

    def require(self) -> None:
        """What a run needs beyond valid values (a schema's defaults must compose without it)."""


@dataclass
class ReplaySynthConfig(SynthGeneratorConfig):
    """Candidates produced elsewhere: JSONL of {doc_id, question, excerpt, answer?, category?}."""

    name: str = "replay"
    path: str | None = None

    def require(self) -> None:
        if not self.path:
            raise ConfigError("generator=replay needs generator.path=<file of {doc_id, question, excerpt, answer?}>")


@dataclass
class AnthropicSynthConfig(ApiSettings, SynthGeneratorConfig):
    """The Messages API: each document a cached prompt prefix, one request per category."""

    name: str = "anthropic"
    model: str | None = "claude-haiku-4-5"
    max_tokens: int = 1024  # reply limit per request
    per_request: int = 3  # questions asked for per (document, category)
    categories: dict[str, str] = field(default_factory=dict)  # category -> what to ask for
    max_retries: int = 2  # SDK retries of 408/409/429/5xx and connection errors

    def __post_init__(self) -> None:
        self.check_api("generator")
        for name in ("max_tokens", "per_request"):
            if getattr(self, name) < 1:
                raise ConfigError(f"generator.{name} ({getattr(self, name)}) must be at least 1")

    def require(self) -> None:
        if not self.categories:
            raise ConfigError("generator.categories is empty; give at least one category: instruction")


@dataclass
class ChecksConfig:
    near_duplicate: float = 0.9  # reject a question whose cosine to an earlier one is at least this
    easy_share: float = 0.8  # flag a question copying at least this share of its terms from the evidence
    reject_easy: bool = False  # reject (not only flag) questions that copy easy_share AND BM25 ranks first
    max_per_document: int | None = None  # keep at most this many per document (null = no cap)
    max_per_category: int | None = None  # keep at most this many per category (null = no cap)
    tau: float = 0.5  # the BM25 check's chunk-span hit rule, as in scoring

    def __post_init__(self) -> None:
        for name in ("near_duplicate", "easy_share", "tau"):
            if not 0 <= getattr(self, name) <= 1:
                raise ConfigError(f"checks.{name} ({getattr(self, name)}) must lie between 0 and 1")
        for name in ("max_per_document", "max_per_category"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ConfigError(f"checks.{name} ({value}) must be at least 1, or null for no cap")


@dataclass
class SynthesizeConfig:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    chunker: Any = MISSING  # a chunker's settings (chunk/registry.py)
    embedder: Any = MISSING  # an embedder's settings (embed/registry.py)
    generator: Any = MISSING  # a candidate generator's settings (synthesize/registry.py GENERATORS)
    checks: ChecksConfig = field(default_factory=ChecksConfig)
    out: str | None = None  # null = results/synthesize/<dataset>-<generator>.jsonl
    cache_dir: str | None = None  # null = $RAG_BENCH_CACHE or the user cache folder
