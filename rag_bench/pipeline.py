"""The reference pipeline, wired in plain Python: chunk -> embed -> index -> retrieve -> fuse -> rerank -> score."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import numpy as np

from rag_bench.cache import DiskCache, default_cache_dir, digest
from rag_bench.chunk.base import Chunker, RangeChunker
from rag_bench.config import ChunkerConfig, Config
from rag_bench.data.bundled import dataset_folder
from rag_bench.data.native import load_dataset
from rag_bench.embed.base import Embedder
from rag_bench.embed.registry import build_embedder
from rag_bench.embed.store import EmbedStats, VectorStore, embed_cached
from rag_bench.fuse.rrf import rrf
from rag_bench.index.analyzers import get_analyzer
from rag_bench.index.bm25 import BM25Index
from rag_bench.index.dense import DenseIndex
from rag_bench.rerank.base import rerank
from rag_bench.rerank.registry import build_reranker
from rag_bench.score.evaluate import Evaluation, evaluate
from rag_bench.types import Chunk, Dataset

INDEXES = {"bm25": ("bm25",), "dense": ("dense",), "hybrid": ("bm25", "dense")}


@dataclass
class Stats:
    """What a run computed and what it reused, and how long each stage took."""

    chunks: int = 0
    chunks_cached: bool = False
    embedded: int = 0  # texts newly embedded (documents and queries)
    cache_hits: int = 0  # texts whose vectors came from the cache
    truncated: int = 0  # chunks longer than the embedder's input limit
    index_bytes: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = round(self.seconds.get(name, 0.0) + time.perf_counter() - start, 4)

    def add_embedding(self, stats: EmbedStats) -> None:
        self.embedded += stats.embedded
        self.cache_hits += stats.cache_hits


@dataclass
class RunResult:
    """Everything a run produced, before it is written out."""

    config: Config
    dataset: Dataset
    chunks: list[Chunk]
    ranked: np.ndarray  # (n_questions, width) chunk indices, best first, -1 padded
    scores: np.ndarray  # (n_questions, width) final scores
    evaluation: Evaluation
    stats: Stats


def run(cfg: Config) -> RunResult:
    """Run the pipeline that ``cfg`` describes and score it."""
    stats = Stats()
    cache = DiskCache(cfg.cache_dir or default_cache_dir())
    with stats.stage("load"):
        dataset = load_dataset(dataset_folder(cfg.dataset.name, cfg.dataset.path), cfg.dataset.name)
    embedder = build_embedder(cfg.embedder)
    with stats.stage("chunk"):
        chunks, stats.chunks_cached = chunk_dataset(dataset, cfg.chunker, embedder, cache)
    stats.chunks = len(chunks)
    passages = [c.indexed_text for c in chunks]
    questions = [q.text for q in dataset.questions]
    runs = []
    for index in INDEXES[cfg.retrieval.mode]:
        with stats.stage(index):
            runs.append(SEARCHERS[index](cfg, passages, questions, embedder, cache, stats))
    with stats.stage("fuse"):
        if len(runs) == 1:
            ranked, scores = runs[0]
        else:
            ranked, scores = rrf([r[0] for r in runs], cfg.retrieval.k_rrf, cfg.retrieval.weights)
    reranker = build_reranker(cfg.reranker)
    if reranker is not None:
        with stats.stage("rerank"):
            ranked, scores = rerank(ranked, questions, passages, reranker, cfg.reranker.depth)
    with stats.stage("score"):
        evaluation = evaluate(dataset, chunks, ranked, cfg.ks, cfg.tau, cfg.bootstrap, cfg.seed)
    return RunResult(cfg, dataset, chunks, ranked, scores, evaluation, stats)


def build_chunker(cfg: ChunkerConfig, embedder: Embedder) -> Chunker:
    """The chunker ``cfg`` names; token units use the embedder's own tokenizer."""
    return RangeChunker(
        cfg.name,
        cfg.size,
        cfg.overlap_units,
        cfg.unit,
        cfg.prefix,
        token_spans=getattr(embedder, "token_spans", None),
        special_tokens=getattr(embedder, "special_tokens", 0),
    )


def chunk_dataset(dataset: Dataset, cfg: ChunkerConfig, embedder: Embedder, cache: DiskCache):
    """All chunks of the dataset in corpus order, reused from the cache when unchanged."""
    fingerprint = digest(*((d.id, d.title, d.text) for d in dataset.documents))
    tokenizer = embedder.name if cfg.unit == "tokens" else None
    key = digest("chunks", fingerprint, asdict(cfg), tokenizer)
    chunker = build_chunker(cfg, embedder)
    return cache.get_or_compute(
        "chunks", key, lambda: [c for d in dataset.documents for c in chunker.split(d)]
    )


def search_bm25(cfg: Config, passages, questions, embedder, cache, stats):
    """BM25 candidates for every question: (n_questions, depth) indices and scores."""
    analyze = get_analyzer(cfg.retrieval.analyzer)
    index = BM25Index.build([analyze(p) for p in passages], k1=cfg.retrieval.k1, b=cfg.retrieval.b)
    stats.index_bytes += index.nbytes
    return index.search([analyze(q) for q in questions], cfg.retrieval.depth)


def search_dense(cfg: Config, passages, questions, embedder, cache, stats):
    """Dense candidates: chunks embedded in document mode, questions in query mode."""
    docs = VectorStore(cache, embedder.name, embedder.dimension, "document")
    vectors, doc_stats = embed_cached(embedder, docs, passages, "document", "embedding chunks")
    queries = VectorStore(cache, embedder.name, embedder.dimension, "query")
    qvectors, query_stats = embed_cached(embedder, queries, questions, "query", "embedding questions")
    stats.add_embedding(doc_stats)
    stats.add_embedding(query_stats)
    if hasattr(embedder, "count_tokens"):
        stats.truncated = int((embedder.count_tokens(passages) > embedder.max_tokens).sum())
    index = DenseIndex(vectors)
    stats.index_bytes += index.nbytes
    return index.search(qvectors, cfg.retrieval.depth)


SEARCHERS = {"bm25": search_bm25, "dense": search_dense}
