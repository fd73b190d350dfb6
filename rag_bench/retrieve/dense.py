"""Dense retrieval: embed chunks (document mode) and questions (query mode), search a ``VectorIndex``.

The index is ``retrieval.index`` (``index/registry.py``); an approximate one is also compared
with exact search over the same vectors, and its recall at depth is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from omegaconf import MISSING

from rag_bench.cache import digest
from rag_bench.embed.base import Embedder, TokenCounting, is_matryoshka
from rag_bench.embed.dimension import reduce_dimension
from rag_bench.embed.store import EmbedStats, embed_cached
from rag_bench.errors import ConfigError
from rag_bench.index.base import IndexContext
from rag_bench.index.dense import DenseIndex
from rag_bench.index.hnsw import recall_at_depth
from rag_bench.index.registry import VECTOR_INDEXES, build_index
from rag_bench.retrieve.base import Candidates, Corpus, Query, RetrievalConfig, RetrievalStats
from rag_bench.retrieve.resources import Resources
from rag_bench.variants import settings_of
from rag_bench.workspace import Workspace


@dataclass
class DenseSettings:
    """Dense retrieval's own settings (also keys of ``retrieval=hybrid``)."""

    index: Any = MISSING  # a dense index's settings (retrieval.index=exact|hnsw; keys retrieval.index.*)

    def check(self) -> None:
        if self.index == MISSING:  # built in Python: the default index
            self.index = VECTOR_INDEXES["exact"].schema()
        elif isinstance(self.index, str):
            self.index = settings_of("retrieval.index", self.index, VECTOR_INDEXES, {})


@dataclass
class DenseConfig(DenseSettings, RetrievalConfig):
    mode: str = "dense"


class DenseRetriever:
    """Top ``depth`` chunks by inner product of unit vectors, from the configured index."""

    name = "dense"

    def __init__(self, cfg: DenseSettings, resources: Resources) -> None:
        if resources.embedder is None:
            raise ConfigError("retrieval=dense needs an embedder")
        self.cfg, self.resources = cfg, resources
        self.embedder: Embedder = resources.embedder
        self.target = resources.dimension or self.embedder.dimension
        if self.target > self.embedder.dimension:
            raise ConfigError(
                f"embedder.dimension ({self.target}) exceeds the native dimension ({self.embedder.dimension}) "
                f"of {self.embedder.name}"
            )

    def cache_key(self) -> tuple:
        e = self.embedder
        return ("dense", self.resources.corpus.key, e.name, e.dimension, self.target, asdict(self.cfg.index))

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        ws, corpus, embedder = self.resources.workspace, self.resources.corpus, self.embedder
        docs, doc_stats = embed_cached(
            embedder, ws.store(embedder, "document"), corpus.passages, "document", "embedding chunks", memory_map=True
        )
        vectors, query_stats = self._embed_queries(queries)
        docs, vectors = reduce_dimension(docs, vectors, self.target, is_matryoshka(embedder))
        context = IndexContext(ws.cache, digest("vectors", corpus.key, embedder.name, embedder.dimension, self.target))
        index = build_index(self.cfg.index, docs, context)
        indices, scores = index.search(vectors, depth)
        ann = None
        if type(self.cfg.index).approximate:
            ann = recall_at_depth(indices, DenseIndex(docs).search(vectors, depth)[0])
        stats = RetrievalStats(
            index_bytes=index.nbytes,
            embedded=doc_stats.embedded + query_stats.embedded,
            cache_hits=doc_stats.cache_hits + query_stats.cache_hits,
            truncated=count_truncated(ws, embedder, corpus),
            ann_recall=ann,
        )
        return Candidates(corpus.chunks, indices, scores, stats)

    def _embed_queries(self, queries: Sequence[Query]) -> tuple[np.ndarray, EmbedStats]:
        """(n_queries, dim) vectors: each query embedded in its own mode (query, or document for HyDE)."""
        ws, embedder = self.resources.workspace, self.embedder
        out = np.zeros((len(queries), embedder.dimension), np.float32)
        total = EmbedStats()
        for input_type in sorted({q.input_type for q in queries}):
            rows = [i for i, q in enumerate(queries) if q.input_type == input_type]
            label = "embedding questions" if input_type == "query" else f"embedding queries ({input_type} mode)"
            texts = [queries[i].text for i in rows]
            vectors, stats = embed_cached(embedder, ws.store(embedder, input_type), texts, input_type, label)
            out[rows] = vectors
            total = EmbedStats(total.embedded + stats.embedded, total.cache_hits + stats.cache_hits)
        return out, total


def count_truncated(ws: Workspace, embedder: Embedder, corpus: Corpus) -> int:
    """Chunks whose indexed text exceeds the embedder's input limit (0 when it cannot count tokens)."""
    if not isinstance(embedder, TokenCounting):
        return 0
    key = digest("truncated", corpus.key, embedder.name)

    def count() -> int:
        return int((embedder.count_tokens(corpus.passages) > embedder.max_tokens).sum())

    return ws.remember("truncated", key, lambda: ws.cache.get_or_compute("truncated", key, count)[0])


def build(cfg: DenseSettings, resources: Resources) -> DenseRetriever:
    return DenseRetriever(cfg, resources)
