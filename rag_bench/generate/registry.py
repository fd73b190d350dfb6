"""Generators by config name (``generator=extractive|replay|anthropic``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.core.options import settings_of
from rag_bench.generate.base import Generator
from rag_bench.generate.settings import AnthropicGeneratorConfig, ExtractiveConfig, GeneratorConfig, ReplayConfig


def _extractive(cfg) -> Generator:
    from rag_bench.generate.extractive import ExtractiveGenerator

    return ExtractiveGenerator(cfg.threshold)


def _replay(cfg) -> Generator:
    from rag_bench.generate.replay import ReplayGenerator

    if not cfg.path:
        raise ConfigError("generator=replay needs the answers file: add generator.path=<answers.jsonl>")
    return ReplayGenerator(cfg.path)


def _anthropic(cfg) -> Generator:
    from rag_bench.generate.anthropic_api import AnthropicGenerator

    return AnthropicGenerator(cfg)


@dataclass(frozen=True)
class GeneratorEntry:
    schema: type[GeneratorConfig]
    build: Callable[[GeneratorConfig], Generator]


GENERATORS: dict[str, GeneratorEntry] = {
    "extractive": GeneratorEntry(ExtractiveConfig, _extractive),
    "replay": GeneratorEntry(ReplayConfig, _replay),
    "anthropic": GeneratorEntry(AnthropicGeneratorConfig, _anthropic),
}


def generator_config(name: str, **settings) -> GeneratorConfig:
    """The checked settings of generator ``name`` (its schema's defaults, then ``settings``)."""
    return settings_of("generator", name, GENERATORS, settings)


def build_generator(cfg: GeneratorConfig) -> Generator:
    """The generator ``cfg`` describes."""
    return GENERATORS[cfg.name].build(cfg)
