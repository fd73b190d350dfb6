"""Candidate generators by config name (``generator=replay|anthropic|openai``): each one's settings schema and builder.

A builder is called as ``build(cfg, documents, cache)`` and returns a generator with ``candidates(documents,
bar)``, ``settings``, ``usage``, ``cost_usd`` and ``close()``. Adding one: a module with its settings
dataclass (derived from ``candidates.SynthGeneratorConfig``) and its class, one entry here, and
``configs/synthesize/generator/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.synthesize.anthropic import AnthropicCandidates, AnthropicSynthConfig
from rag_bench.synthesize.candidates import ReplayCandidates, ReplaySynthConfig
from rag_bench.synthesize.openai import OpenAICandidates, OpenAISynthConfig

GENERATORS = Options(
    "generator",
    default="replay",
    path="synthesize/generator",
    options={
        "replay": Option(ReplaySynthConfig, ReplayCandidates),
        "anthropic": Option(AnthropicSynthConfig, AnthropicCandidates),
        "openai": Option(OpenAISynthConfig, OpenAICandidates),
    },
)
