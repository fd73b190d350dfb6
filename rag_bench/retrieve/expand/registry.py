"""Expansions by config name (``expand=none|parent|window|merge``): each one's settings schema and builder.

A builder is called as ``build(cfg, resources)`` and returns a ``retrieve.steps.Step`` that runs after
retrieval and before the reranker (``none``: nothing runs). Adding one: a module with its settings
dataclass (derived from ``base.ExpandConfig``) and builder, one entry here, and ``configs/expand/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.retrieve.expand import merge, parent, window
from rag_bench.retrieve.expand.base import NoExpandConfig

EXPANDERS = Options(
    "expand",
    default="none",
    options={
        "none": Option(NoExpandConfig),
        "parent": Option(parent.ParentConfig, parent.build),
        "window": Option(window.WindowConfig, window.build),
        "merge": Option(merge.MergeConfig, merge.build),
    },
)
