"""Context generators by config name (``generator=offline|anthropic|openai``): each one's settings schema and builder.

A builder is called as ``build(cfg, documents, cache)`` and returns a ``base.ContextGenerator``. Adding
one: a module with its settings dataclass (derived from ``base.ContextGeneratorConfig``) and its class,
one entry here, and ``configs/contextualize/generator/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.contextualize.anthropic import AnthropicContextConfig, AnthropicContexts
from rag_bench.contextualize.offline import OfflineContextConfig, OfflineContexts
from rag_bench.contextualize.openai import OpenAIContextConfig, OpenAIContexts
from rag_bench.core.options import Option, Options

GENERATORS = Options(
    "generator",
    default="offline",
    path="contextualize/generator",
    options={
        "offline": Option(OfflineContextConfig, OfflineContexts),
        "anthropic": Option(AnthropicContextConfig, AnthropicContexts),
        "openai": Option(OpenAIContextConfig, OpenAIContexts),
    },
)
