"""Rerankers by config name (``reranker=none|voyage|cohere|jina|tei|onnx|maxsim|fake``); ``none`` keeps the fused
order.

A builder is called as ``build(cfg, ws)``: ``cfg`` the reranker's settings, ``ws`` the run's
``Workspace`` (its disk cache and vector stores) for rerankers that keep scores or vectors.
Adding a reranker: a module with its settings dataclass (derived from ``base.CutRerankerConfig``, or
``remote.RemoteRerankerConfig`` for an API) and ``build(cfg, ws) -> Reranker``, one entry here, and
``configs/reranker/<name>.yaml``. An API reranker only writes its ``remote.Transport``.
"""

from __future__ import annotations

from rag_bench.core.options import Option, Options
from rag_bench.rerank import cohere, fake, jina, maxsim, onnx, tei, voyage
from rag_bench.rerank.base import NoRerankerConfig

RERANKERS = Options(
    "reranker",
    default="none",
    options={
        "none": Option(NoRerankerConfig),
        "voyage": Option(voyage.VoyageRerankerConfig, voyage.build),
        "cohere": Option(cohere.CohereRerankerConfig, cohere.build),
        "jina": Option(jina.JinaRerankerConfig, jina.build),
        "tei": Option(tei.TeiRerankerConfig, tei.build),
        "onnx": Option(onnx.OnnxRerankerConfig, onnx.build),
        "maxsim": Option(maxsim.MaxSimConfig, maxsim.build),
        "fake": Option(fake.FakeRerankerConfig, fake.build),
    },
)
