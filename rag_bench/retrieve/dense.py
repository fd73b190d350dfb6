"""Dense retrieval: embed chunks (document mode) and questions (query mode), search a ``VectorIndex``.

The index is ``retrieval.index`` (``index/registry.py``); an approximate one is also compared
with exact search over the same vectors and the same filters, and its recall at depth is
reported (``filtered_ann_recall`` over the filtered queries alone). All queries are searched in
one batched call (the index's matrix products see every query at once); per-query latency is
measured on an evenly spaced sample of up to ``LATENCY_SAMPLE`` queries searched one at a time, within
a time budget of a tenth of the batched search (p50 and p95 in the index report, with ``latency_sample``
saying how many were timed). A database index answers one logged statement per query anyway: its
sample is the run's own searches (``search_all``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from omegaconf import MISSING

from rag_bench.core.cache import digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.workspace import Workspace
from rag_bench.embed.base import Embedder, TokenCounting, is_matryoshka
from rag_bench.embed.cached import EmbedStats, embed_cached
from rag_bench.embed.dimension import reduce_dimension
from rag_bench.embed.store import vector_store
from rag_bench.index.base import IndexContext, Reporting, VectorIndex
from rag_bench.index.dense import DenseIndex
from rag_bench.index.hnsw import recall_at_depth
from rag_bench.index.registry import VECTOR_INDEXES
from rag_bench.retrieve.base import Candidates, Corpus, Query, RetrievalConfig, RetrievalStats
from rag_bench.retrieve.resources import Resources

LATENCY_SAMPLE = 64  # queries timed one at a time for the per-query latency report, at most
LATENCY_MIN = 8  # ... and at least, though the sample's time budget is spent
LATENCY_BUDGET = 0.1  # the sample's time budget: this share of the batched search's time (at least 50 ms)


@dataclass
class DenseSettings:
    """Dense retrieval's own settings (also keys of ``retrieval=hybrid``)."""

    index: Any = MISSING  # a dense index's settings (retrieval.index=exact|hnsw; keys retrieval.index.*)

    def check(self) -> None:
        if self.index == MISSING:  # built in Python: the default index
            self.index = VECTOR_INDEXES.default_settings()
        elif isinstance(self.index, str):
            self.index = VECTOR_INDEXES.settings(self.index)


@dataclass
class DenseConfig(DenseSettings, RetrievalConfig):
    mode: str = "dense"


class DenseRetriever:
    """Top ``depth`` chunks by inner product of unit vectors, from the configured index."""

    name = "dense"
    applies_filters = True

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
        started = time.perf_counter()
        docs, doc_stats = embed_cached(
            embedder,
            vector_store(ws, embedder, "document"),
            corpus.passages,
            "document",
            "embedding chunks",
            memory_map=True,
        )
        vectors, query_stats = self._embed_queries(queries)
        embed_seconds = time.perf_counter() - started  # chunks and questions, through the vector cache
        docs, vectors = reduce_dimension(docs, vectors, self.target, is_matryoshka(embedder))
        key = digest("vectors", corpus.key, embedder.name, embedder.dimension, self.target)
        context = IndexContext(ws.cache, key, corpus.metadata, corpus.metadata_key)
        started = time.perf_counter()
        index = VECTOR_INDEXES.build(self.cfg.index, docs, context)
        build_seconds = time.perf_counter() - started
        filters = [q.filter for q in queries]
        indices, scores, latency, search_seconds = search_all(index, vectors, depth, filters)
        ann = filtered_ann = None
        if type(self.cfg.index).approximate:
            exact = DenseIndex(docs, corpus.metadata).search(vectors, depth, filters)[0]
            ann = recall_at_depth(indices, exact)
            rows = [i for i, f in enumerate(filters) if f is not None]
            filtered_ann = recall_at_depth(indices[rows], exact[rows]) if rows else None
        report, files = index_report(index, self.cfg.index.name, build_seconds, latency)
        stats = RetrievalStats(
            index_bytes=index.nbytes,
            embedded=doc_stats.embedded + query_stats.embedded,
            cache_hits=doc_stats.cache_hits + query_stats.cache_hits,
            truncated=count_truncated(ws, embedder, corpus),
            ann_recall=ann,
            filtered_ann_recall=filtered_ann,
            index=report,
            files=files,
            steps={"embed": embed_seconds, "build": build_seconds, "search": search_seconds},
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
            vectors, stats = embed_cached(embedder, vector_store(ws, embedder, input_type), texts, input_type, label)
            out[rows] = vectors
            total = EmbedStats(total.embedded + stats.embedded, total.cache_hits + stats.cache_hits)
        return out, total


def search_all(
    index: VectorIndex, vectors: np.ndarray, depth: int, filters: Sequence
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(n, width) indices and scores (-1 / -inf padded), per-query seconds on a sample, and the search's seconds.

    An in-process index searches every query in one call, then times a sample again one at a time
    (``sampled_latency``). A database index (``Reporting``: pgvector, Chroma) runs one logged statement
    per query whatever the batch, so its sample is the run's own first searches, timed as they run, and
    every question appears once in its log.
    """
    started = time.perf_counter()
    if not isinstance(index, Reporting):
        indices, scores = index.search(vectors, depth, filters)
        seconds = time.perf_counter() - started
        latency = sampled_latency(index, vectors, depth, filters, budget_s=max(0.05, LATENCY_BUDGET * seconds))
        return indices, scores, latency, seconds
    rows = _sample_rows(len(vectors), LATENCY_SAMPLE)
    rest = np.setdiff1d(np.arange(len(vectors)), rows)
    parts, latency = [], np.zeros(rows.size)
    for slot, i in enumerate(rows):
        start = time.perf_counter()
        parts.append(([int(i)], index.search(vectors[i : i + 1], depth, filters[i : i + 1])))
        latency[slot] = time.perf_counter() - start
    if rest.size:
        parts.append((rest.tolist(), index.search(vectors[rest], depth, [filters[i] for i in rest])))
    width = max(found.shape[1] for _, (found, _) in parts)
    indices, scores = np.full((len(vectors), width), -1, np.int64), np.full((len(vectors), width), -np.inf)
    for at, (found, values) in parts:
        indices[at, : found.shape[1]], scores[at, : found.shape[1]] = found, values
    return indices, scores, latency, time.perf_counter() - started


def _sample_rows(n: int, size: int) -> np.ndarray:
    """Up to ``size`` evenly spaced rows of ``n``, in a fixed shuffled order (an early stop still spreads)."""
    rows = np.unique(np.linspace(0, n - 1, min(size, n)).astype(np.int64))
    return rows[np.random.default_rng(0).permutation(rows.size)]


def sampled_latency(
    index: VectorIndex,
    vectors: np.ndarray,
    depth: int,
    filters: Sequence,
    size: int = LATENCY_SAMPLE,
    budget_s: float = float("inf"),
) -> np.ndarray:
    """Seconds of each of up to ``size`` evenly spaced queries, each searched on its own (a sample, not the run).

    The queries are visited in a fixed shuffled order and the sample ends early (after at least
    ``LATENCY_MIN`` queries) once it has taken ``budget_s``, so a busy machine does not pay for it twice.
    """
    rows = _sample_rows(len(vectors), size)
    seconds: list[float] = []
    for i in rows:
        if len(seconds) >= LATENCY_MIN and sum(seconds) > budget_s:
            break
        start = time.perf_counter()
        index.search(vectors[i : i + 1], depth, filters[i : i + 1])
        seconds.append(time.perf_counter() - start)
    return np.array(seconds)


def index_report(
    index: VectorIndex, name: str, build_seconds: float, latency: np.ndarray
) -> tuple[dict[str, object], dict[str, str]]:
    """The index's report for metrics.json (build, size, sampled per-query latency in ms) and its run-folder files."""
    report: dict[str, object] = {"name": name, "build_seconds": build_seconds, "built": True, "disk_bytes": None}
    files: dict[str, str] = {}
    if isinstance(index, Reporting):
        own = index.report()
        report.update(build_seconds=own.build_seconds, built=own.built, disk_bytes=own.disk_bytes, **own.details)
        if own.log_name:
            files[own.log_name] = "".join(f"{line.rstrip()}\n" for line in own.log)
    if latency.size:
        p50, p95 = np.percentile(latency * 1000.0, [50, 95])
        report.update(latency_ms_p50=float(p50), latency_ms_p95=float(p95), latency_sample=int(latency.size))
    return report, files


def count_truncated(ws: Workspace, embedder: Embedder, corpus: Corpus) -> int:
    """Chunks whose indexed text exceeds the embedder's input limit (0 when it cannot count tokens)."""
    if not isinstance(embedder, TokenCounting):
        return 0
    if embedder.max_tokens >= 4 * max(map(len, corpus.passages), default=0) + 16:
        return 0  # no tokenizer makes more than one token per UTF-8 byte (plus its special tokens): none can be
    key = digest("truncated", corpus.key, embedder.name)

    def count() -> int:
        return int((embedder.count_tokens(corpus.passages) > embedder.max_tokens).sum())

    return ws.remember("truncated", key, lambda: ws.cache.get_or_compute("truncated", key, count)[0])


def build(cfg: DenseSettings, resources: Resources) -> DenseRetriever:
    return DenseRetriever(cfg, resources)
