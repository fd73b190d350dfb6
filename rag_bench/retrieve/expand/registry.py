"""Expansions by config name (``expand=none|parent|window|merge``): each one's settings schema and builder.

A builder is called as ``build(cfg, resources)`` and returns a ``retrieve.steps.Step`` that runs after
retrieval and before the reranker (``none``: nothing runs). Adding one: a module with its settings
dataclass (derived from ``base.ExpandConfig``) and builder, one entry here, and ``configs/expand/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.retrieve.expand.base import NoExpandConfig

EXPANDERS = Options(
    "expand",
    default="none",
    options={
        "none": Option(NoExpandConfig),
        "parent": Option("rag_bench.retrieve.expand.parent:ParentConfig", "rag_bench.retrieve.expand.parent:build"),
        "window": Option("rag_bench.retrieve.expand.window:WindowConfig", "rag_bench.retrieve.expand.window:build"),
        "merge": Option("rag_bench.retrieve.expand.merge:MergeConfig", "rag_bench.retrieve.expand.merge:build"),
    },
)
