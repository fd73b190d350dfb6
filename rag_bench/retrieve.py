"""First-stage retrieval: BM25 and dense candidates for every question, reused when unchanged.

Candidate lists are keyed by what they depend on (DESIGN section 5): the chunks, the
questions and the index settings. A hit skips the index build and the embedding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from rag_bench.cache import digest
from rag_bench.config import Config
from rag_bench.embed.base import Embedder
from rag_bench.embed.dimension import PCA, truncate
from rag_bench.embed.store import EmbedStats, embed_cached
from rag_bench.errors import ConfigError
from rag_bench.index.analyzers import get_analyzer
from rag_bench.index.bm25 import BM25Index
from rag_bench.index.dense import DenseIndex
from rag_bench.index.hnsw import HNSWIndex, recall_at_depth
from rag_bench.types import Chunk
from rag_bench.workspace import Workspace


@dataclass(frozen=True)
class Corpus:
    """The chunks of one dataset under one chunker, and the key that names them."""

    key: str
    chunks: list[Chunk]

    @cached_property
    def passages(self) -> list[str]:
        """The indexed text (prefix and source) of every chunk, built once per corpus."""
        return [c.indexed_text for c in self.chunks]


@dataclass(frozen=True)
class Candidates:
    """Ranked candidates of one index: (n_questions, depth) chunk indices (-1 padded) and scores."""

    indices: np.ndarray
    scores: np.ndarray
    index_bytes: int
    embedded: EmbedStats
    ann_recall: float | None = None  # approximate index: share of the exact top-depth it found


def bm25_candidates(ws: Workspace, cfg: Config, corpus: Corpus, questions: Sequence[str]) -> tuple[Candidates, bool]:
    """BM25 top ``retrieval.depth`` per question, and whether it came from the cache."""
    r = cfg.retrieval
    index_key = digest("bm25-index", corpus.key, r.analyzer, r.k1, r.b, r.bm25_variant)

    def compute() -> Candidates:
        analyze = get_analyzer(r.analyzer)
        index = ws.remember(
            "bm25",
            index_key,
            lambda: BM25Index.build([analyze(p) for p in corpus.passages], k1=r.k1, b=r.b, variant=r.bm25_variant),
        )
        idx, scores = index.search([analyze(q) for q in questions], r.depth)
        return Candidates(idx, scores, index.nbytes, EmbedStats())

    return ws.cache.get_or_compute("candidates", digest("bm25", index_key, list(questions), r.depth), compute)


def dense_candidates(
    ws: Workspace, cfg: Config, embedder: Embedder, corpus: Corpus, questions: Sequence[str]
) -> tuple[Candidates, bool]:
    """Exact dense top ``retrieval.depth`` per question, and whether it came from the cache."""
    target = cfg.embedder.dimension or embedder.dimension
    if target > embedder.dimension:
        raise ConfigError(
            f"embedder.dimension ({target}) exceeds the native dimension ({embedder.dimension}) of {embedder.name}"
        )
    r = cfg.retrieval
    ann = (r.index, r.hnsw_m, r.hnsw_ef, r.hnsw_ef_construction) if r.index == "hnsw" else "exact"
    key = digest("dense", corpus.key, embedder.name, embedder.dimension, target, list(questions), r.depth, ann)

    def compute() -> Candidates:
        docs, doc_stats = embed_cached(
            embedder, ws.store(embedder, "document"), corpus.passages, "document", "embedding chunks", memory_map=True
        )
        queries, query_stats = embed_cached(
            embedder, ws.store(embedder, "query"), list(questions), "query", "embedding questions"
        )
        docs, queries = reduce_dimension(embedder, docs, queries, target)
        exact = DenseIndex(docs)
        idx, scores = exact.search(queries, r.depth)
        stats = EmbedStats(doc_stats.embedded + query_stats.embedded, doc_stats.cache_hits + query_stats.cache_hits)
        if r.index == "exact":
            return Candidates(idx, scores, exact.nbytes, stats)
        approx = HNSWIndex(docs, M=r.hnsw_m, ef=r.hnsw_ef, ef_construction=r.hnsw_ef_construction)
        ann_idx, ann_scores = approx.search(queries, r.depth)
        return Candidates(ann_idx, ann_scores, approx.nbytes, stats, recall_at_depth(ann_idx, idx))

    return ws.cache.get_or_compute("candidates", key, compute)


def reduce_dimension(
    embedder: Embedder, docs: np.ndarray, queries: np.ndarray, target: int
) -> tuple[np.ndarray, np.ndarray]:
    """Document and query vectors at ``target`` dimensions (unchanged at the native one)."""
    if target == docs.shape[1]:
        return docs, queries
    if getattr(embedder, "matryoshka", False):
        return truncate(docs, target), truncate(queries, target)
    pca = PCA.fit(docs, target)
    return pca.apply(docs), pca.apply(queries)
