"""Embedders by config name (``embedder=local|voyage|fake``): each one's settings schema and builder.

Adding an embedder: a module with its settings dataclass (derived from ``base.EmbedderConfig``) and
``build(cfg) -> Embedder``, one entry here, and ``configs/embedder/<name>.yaml``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.embed import fake, local, voyage

EMBEDDERS = Options(
    "embedder",
    default="local",
    options={
        "local": Option(local.LocalConfig, local.build),
        "voyage": Option(voyage.VoyageConfig, voyage.build),
        "fake": Option(fake.FakeConfig, fake.build),
    },
)
