"""Generators by config name (``generator=extractive|replay|anthropic|openai``): each one's settings schema and builder.

Adding a generator: a module with its settings dataclass (derived from ``base.GeneratorConfig``) and
``build(cfg) -> Generator``, one entry here, and ``configs/generate/generator/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options

GENERATORS = Options(
    "generator",
    default="extractive",
    path="generate/generator",
    options={
        "extractive": Option("rag_bench.generate.extractive:ExtractiveConfig", "rag_bench.generate.extractive:build"),
        "replay": Option("rag_bench.generate.replay:ReplayConfig", "rag_bench.generate.replay:build"),
        "anthropic": Option(
            "rag_bench.generate.anthropic:AnthropicGeneratorConfig", "rag_bench.generate.anthropic:build"
        ),
        "openai": Option("rag_bench.generate.openai:OpenAIGeneratorConfig", "rag_bench.generate.openai:build"),
    },
)
