"""Rewrite generators by config name (``generator=offline|anthropic|openai|replay``): each one's schema and class.

A builder is called as ``build(cfg, dataset, cache)`` and returns a ``base.Rewriter``. Adding one: a module
with its settings dataclass and its class, one entry here, and ``configs/rewrite/generator/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.rewrite.anthropic import AnthropicRewriter, AnthropicRewriterConfig
from rag_bench.rewrite.offline import OfflineRewriter, OfflineRewriterConfig
from rag_bench.rewrite.openai import OpenAIRewriter, OpenAIRewriterConfig
from rag_bench.rewrite.replay import ReplayRewriter, ReplayRewriterConfig

REWRITERS = Options(
    "generator",
    default="offline",
    path="rewrite/generator",
    options={
        "offline": Option(OfflineRewriterConfig, OfflineRewriter),
        "anthropic": Option(AnthropicRewriterConfig, AnthropicRewriter),
        "openai": Option(OpenAIRewriterConfig, OpenAIRewriter),
        "replay": Option(ReplayRewriterConfig, ReplayRewriter),
    },
)
