"""Embedders by config name (``embedder=local|onnx|openai|cohere|tei|voyage|fake``): each one's settings schema
and builder.

Adding an embedder: a module with its settings dataclass (derived from ``base.EmbedderConfig``, or
``remote.RemoteEmbedderConfig`` for an API) and ``build(cfg) -> Embedder``, one entry here, and
``configs/embedder/<name>.yaml``. Every embedder then gets its model family's query and document
prefixes (``prefixes.py``), which the group's ``build`` applies.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.embed.prefixes import with_prefixes


class EmbedderOptions(Options):
    """The embedder group: building an option also puts the chosen prefixes before its texts."""

    def build(self, settings: object, *context: object):
        return with_prefixes(super().build(settings, *context), settings)


EMBEDDERS = EmbedderOptions(
    "embedder",
    default="local",
    options={
        "local": Option("rag_bench.embed.local:LocalConfig", "rag_bench.embed.local:build"),
        "onnx": Option("rag_bench.embed.onnx:OnnxConfig", "rag_bench.embed.onnx:build"),
        "openai": Option("rag_bench.embed.openai:OpenAIEmbedderConfig", "rag_bench.embed.openai:build"),
        "cohere": Option("rag_bench.embed.cohere:CohereEmbedderConfig", "rag_bench.embed.cohere:build"),
        "tei": Option("rag_bench.embed.tei:TeiEmbedderConfig", "rag_bench.embed.tei:build"),
        "voyage": Option("rag_bench.embed.voyage:VoyageConfig", "rag_bench.embed.voyage:build"),
        "fake": Option("rag_bench.embed.fake:FakeConfig", "rag_bench.embed.fake:build"),
    },
)
