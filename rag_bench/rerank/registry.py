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
from rag_bench.rerank.base import NoRerankerConfig

RERANKERS = Options(
    "reranker",
    default="none",
    options={
        "none": Option(NoRerankerConfig),
        "voyage": Option("rag_bench.rerank.voyage:VoyageRerankerConfig", "rag_bench.rerank.voyage:build"),
        "cohere": Option("rag_bench.rerank.cohere:CohereRerankerConfig", "rag_bench.rerank.cohere:build"),
        "jina": Option("rag_bench.rerank.jina:JinaRerankerConfig", "rag_bench.rerank.jina:build"),
        "tei": Option("rag_bench.rerank.tei:TeiRerankerConfig", "rag_bench.rerank.tei:build"),
        "onnx": Option("rag_bench.rerank.onnx:OnnxRerankerConfig", "rag_bench.rerank.onnx:build"),
        "maxsim": Option("rag_bench.rerank.maxsim:MaxSimConfig", "rag_bench.rerank.maxsim:build"),
        "fake": Option("rag_bench.rerank.fake:FakeRerankerConfig", "rag_bench.rerank.fake:build"),
    },
)
