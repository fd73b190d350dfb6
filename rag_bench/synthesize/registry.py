"""Candidate generators by config name (``generator=replay|anthropic``)."""

from __future__ import annotations

from rag_bench.synthesize.anthropic import AnthropicCandidates
from rag_bench.synthesize.candidates import ReplayCandidates

# name -> class(cfg, documents, cache) with candidates(documents, bar), settings, usage, cost_usd, close()
GENERATORS = {"replay": ReplayCandidates, "anthropic": AnthropicCandidates}
