"""Generators by config name (``generator=extractive|replay|anthropic``)."""

from __future__ import annotations

from collections.abc import Callable

from rag_bench.errors import ConfigError
from rag_bench.generate.base import Generator


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


GENERATORS: dict[str, Callable[..., Generator]] = {
    "extractive": _extractive,
    "replay": _replay,
    "anthropic": _anthropic,
}


def build_generator(cfg) -> Generator:
    """The generator named by ``cfg.name`` (a ``GeneratorConfig``)."""
    return GENERATORS[cfg.name](cfg)
