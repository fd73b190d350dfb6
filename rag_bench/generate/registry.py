"""Generators by config name (``generator=extractive|replay|anthropic|openai``): each one's settings schema and builder.

Adding a generator: a module with its settings dataclass (derived from ``base.GeneratorConfig``) and
``build(cfg) -> Generator``, one entry here, and ``configs/generate/generator/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.generate import anthropic, extractive, openai, replay

GENERATORS = Options(
    "generator",
    default="extractive",
    path="generate/generator",
    options={
        "extractive": Option(extractive.ExtractiveConfig, extractive.build),
        "replay": Option(replay.ReplayConfig, replay.build),
        "anthropic": Option(anthropic.AnthropicGeneratorConfig, anthropic.build),
        "openai": Option(openai.OpenAIGeneratorConfig, openai.build),
    },
)
