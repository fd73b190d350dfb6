"""Diversity options by config name (``diversity=none|mmr|collapse``): each one's settings schema and builder.

A builder is called as ``build(cfg, resources)`` and returns a ``retrieve.steps.Step`` that runs after the
expansion (``expand=``) and before the reranker (``none``: nothing runs). Adding one: a module with its
settings dataclass (derived from ``base.DiversityConfig``) and builder, one entry here, and
``configs/diversity/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.retrieve.diversity.base import NoDiversityConfig

DIVERSIFIERS = Options(
    "diversity",
    default="none",
    options={
        "none": Option(NoDiversityConfig),
        "mmr": Option("rag_bench.retrieve.diversity.mmr:MMRConfig", "rag_bench.retrieve.diversity.mmr:build"),
        "collapse": Option(
            "rag_bench.retrieve.diversity.collapse:CollapseConfig", "rag_bench.retrieve.diversity.collapse:build"
        ),
    },
)
