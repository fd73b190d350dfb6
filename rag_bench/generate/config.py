"""Settings of ``rag-bench check-generation``: dataclasses registered in Hydra's ConfigStore.

Values live in ``configs/generate/`` (group ``generator``: extractive, replay, anthropic).
Unknown keys fail while composing; ``__post_init__`` checks the values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore

from rag_bench.errors import ConfigError

SCHEMA_NAME = "rag_bench_generate_schema"


@dataclass
class GeneratorConfig:
    name: str = "extractive"
    model: str | None = None  # anthropic: the model id
    max_tokens: int = 512  # anthropic
    temperature: float | None = None  # anthropic: null = not sent (API version 2026-10-21 rejects it)
    base_url: str | None = None  # anthropic: e.g. a local fake server
    max_retries: int = 2  # anthropic: retries of 408/409/429/5xx and connection errors
    timeout: float = 60.0  # anthropic: seconds per request
    path: str | None = None  # replay: the JSONL file of answers
    threshold: float = 0.5  # extractive: least share of question words a sentence must hold

    def __post_init__(self) -> None:
        from rag_bench.generate.registry import GENERATORS

        if self.name not in GENERATORS:
            raise ConfigError(f"generator.name ({self.name!r}) must be one of: {', '.join(sorted(GENERATORS))}")
        if self.max_tokens < 1:
            raise ConfigError(f"generator.max_tokens ({self.max_tokens}) must be at least 1")
        if not 0 <= self.max_retries <= 10:
            raise ConfigError(f"generator.max_retries ({self.max_retries}) must lie between 0 and 10")
        if self.timeout <= 0:
            raise ConfigError(f"generator.timeout ({self.timeout}) must be positive (seconds)")
        if not 0 < self.threshold <= 1:
            raise ConfigError(f"generator.threshold ({self.threshold}) must lie in (0, 1]")


@dataclass
class GenerateConfig:
    generator: GeneratorConfig = field(default_factory=GeneratorConfig)
    passages: int = 5  # top chunks of each question put in the prompt, best first
    correct_f1: float = 0.5  # an answer is correct on exact match, containment, or token F1 >= this
    tau: float | None = None  # evidence overlap threshold; null = the run's tau
    cache_dir: str | None = None  # null = $RAG_BENCH_CACHE or the user cache folder

    def __post_init__(self) -> None:
        if self.passages < 1:
            raise ConfigError(f"passages ({self.passages}) must be at least 1")
        if not 0 <= self.correct_f1 <= 1:
            raise ConfigError(f"correct_f1 ({self.correct_f1}) must lie between 0 and 1")
        if self.tau is not None and not 0 <= self.tau <= 1:
            raise ConfigError(f"tau ({self.tau}) must lie between 0 and 1, or be null for the run's tau")


def register() -> None:
    """Make the schema known to Hydra as ``rag_bench_generate_schema`` (configs/generate/config.yaml)."""
    ConfigStore.instance().store(name=SCHEMA_NAME, node=GenerateConfig)
