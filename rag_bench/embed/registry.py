"""Embedders by config name (``embedder=local|onnx|openai|cohere|tei|voyage|fake``): each one's settings schema
and builder.

Adding an embedder: a module with its settings dataclass (derived from ``base.EmbedderConfig``, or
``remote.RemoteEmbedderConfig`` for an API) and ``build(cfg) -> Embedder``, one entry here, and
``configs/embedder/<name>.yaml``. Every embedder then gets its model family's query and document
prefixes (``prefixes.py``), which the group's ``build`` applies.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.embed import cohere, fake, local, onnx, openai, tei, voyage
from rag_bench.embed.prefixes import with_prefixes


class EmbedderOptions(Options):
    """The embedder group: building an option also puts the chosen prefixes before its texts."""

    def build(self, settings: object, *context: object):
        return with_prefixes(super().build(settings, *context), settings)


EMBEDDERS = EmbedderOptions(
    "embedder",
    default="local",
    options={
        "local": Option(local.LocalConfig, local.build),
        "onnx": Option(onnx.OnnxConfig, onnx.build),
        "openai": Option(openai.OpenAIEmbedderConfig, openai.build),
        "cohere": Option(cohere.CohereEmbedderConfig, cohere.build),
        "tei": Option(tei.TeiEmbedderConfig, tei.build),
        "voyage": Option(voyage.VoyageConfig, voyage.build),
        "fake": Option(fake.FakeConfig, fake.build),
    },
)
