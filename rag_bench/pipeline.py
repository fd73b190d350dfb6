"""The reference pipeline, wired in plain Python: chunk -> embed -> index -> retrieve -> fuse -> rerank -> score."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from rag_bench.cache import digest
from rag_bench.chunk.base import Warming
from rag_bench.chunk.registry import build_chunker, chunk_dependencies
from rag_bench.chunk.settings import ChunkerConfig, ChunkerTools
from rag_bench.config import Config
from rag_bench.data.bundled import dataset_folder
from rag_bench.data.native import load_dataset
from rag_bench.embed.base import Embedder
from rag_bench.embed.registry import build_embedder
from rag_bench.embed.store import embed_cached, texts_embedded
from rag_bench.fuse.rrf import rrf
from rag_bench.rerank.base import rerank
from rag_bench.rerank.registry import build_reranker
from rag_bench.rerank.settings import CutRerankerConfig
from rag_bench.retrieve import Candidates, Corpus, bm25_candidates, dense_candidates
from rag_bench.score.evaluate import Evaluation, evaluate
from rag_bench.types import Dataset
from rag_bench.workspace import Workspace, workspace

INDEXES = {"bm25": ("bm25",), "dense": ("dense",), "hybrid": ("bm25", "dense")}


@dataclass
class Stats:
    """What a run computed and what it reused, and how long each stage took."""

    chunks: int = 0
    mean_chunk_chars: float = 0.0
    embedded: int = 0  # texts newly embedded in this run, every stage (chunking, retrieval, reranking)
    cache_hits: int = 0  # chunk and question texts whose dense vectors came from the cache
    truncated: int = 0  # chunks longer than the embedder's input limit
    ann_recall: float | None = None  # retrieval.index=hnsw: recall of its top depth against exact search
    index_bytes: int = 0
    tokens: int = 0  # billed API tokens (embedding and reranking) in this run
    cost_usd: float = 0.0  # estimated API cost of this run (configs/prices.yaml)
    api: dict[str, dict] = field(default_factory=dict)  # per API component: requests, retries, tokens, cost
    reused: dict[str, bool] = field(default_factory=dict)  # stage -> served from the cache
    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start


@dataclass
class RunResult:
    """Everything a run produced, before it is written out."""

    config: Config
    dataset: Dataset
    corpus: Corpus
    ranked: np.ndarray  # (n_questions, width) chunk indices, best first, -1 padded
    scores: np.ndarray  # (n_questions, width) final scores
    evaluation: Evaluation
    stats: Stats

    @property
    def chunks(self):
        return self.corpus.chunks


def run(cfg: Config) -> RunResult:
    """Run the pipeline that ``cfg`` describes and score it."""
    stats = Stats()
    embedded_before = texts_embedded()
    ws = workspace(cfg.cache_dir)
    with stats.stage("load"):
        folder = dataset_folder(cfg.dataset.name, cfg.dataset.path)
        dataset = load(ws, folder, cfg.dataset.name)
        embedder = ws.remember("embedder", digest(asdict(cfg.embedder)), lambda: build_embedder(cfg.embedder))
        reranker = ws.remember("reranker", digest(asdict(cfg.reranker)), lambda: build_reranker(cfg.reranker, ws.cache))
    usage_before = {name: part.usage.as_dict() for name, part in api_parts(embedder, reranker).items()}
    with stats.stage("chunk"):
        corpus, stats.reused["chunks"] = chunk_dataset(ws, dataset, cfg.chunker, embedder, folder)
    stats.chunks = len(corpus.chunks)
    stats.mean_chunk_chars = float(np.mean([len(c) for c in corpus.chunks])) if corpus.chunks else 0.0
    questions = [q.text for q in dataset.questions]
    runs = [first_stage(index, ws, cfg, embedder, corpus, questions, stats) for index in INDEXES[cfg.retrieval.mode]]
    with stats.stage("fuse"):
        if len(runs) == 1:
            ranked, scores = runs[0].indices, runs[0].scores
        else:
            ranked, scores = rrf([r.indices for r in runs], cfg.retrieval.k_rrf, cfg.retrieval.weights)
    if reranker is not None:
        with stats.stage("rerank"):
            ranked, scores = rerank_all(reranker, ranked, questions, corpus.passages, cfg.reranker)
    with stats.stage("score"):
        evaluation = evaluate(
            dataset, corpus.chunks, ranked, scores, cfg.ks, cfg.tau, cfg.bootstrap, cfg.seed, cfg.budgets
        )
    stats.seconds = {k: round(v, 4) for k, v in stats.seconds.items()}
    add_api_usage(stats, api_parts(embedder, reranker), usage_before)
    stats.embedded = texts_embedded() - embedded_before
    return RunResult(cfg, dataset, corpus, ranked, scores, evaluation, stats)


def first_stage(index, ws, cfg, embedder, corpus, questions, stats) -> Candidates:
    """Candidates from one index (``bm25`` or ``dense``), with their cost added to ``stats``."""
    with stats.stage(index):
        if index == "bm25":
            found, cached = bm25_candidates(ws, cfg, corpus, questions)
        else:
            found, cached = dense_candidates(ws, cfg, embedder, corpus, questions)
            stats.truncated = count_truncated(ws, embedder, corpus)
    stats.reused[index] = cached
    stats.index_bytes += found.index_bytes
    if found.ann_recall is not None:
        stats.ann_recall = found.ann_recall
    if not cached:
        stats.cache_hits += found.embedded.cache_hits
    return found


def rerank_all(reranker, ranked: np.ndarray, questions: list[str], passages: list[str], cfg: CutRerankerConfig):
    """Rerank every question's head; rerankers that batch well see all questions first (``prefetch``)."""
    if hasattr(reranker, "prefetch"):
        reranker.prefetch(questions, [[passages[c] for c in row[: cfg.depth] if c >= 0] for row in ranked])
    return rerank(ranked, questions, passages, reranker, cfg.depth, cfg.keep)


def api_parts(embedder, reranker) -> dict[str, object]:
    """The components that call a paid API (they carry a ``usage`` counter)."""
    parts = {"embedder": embedder, "reranker": reranker}
    return {name: part for name, part in parts.items() if hasattr(part, "usage")}


def add_api_usage(stats: Stats, parts: dict[str, object], before: dict[str, dict]) -> None:
    """What each API component was asked for during this run (components live across sweep points)."""
    for name, part in parts.items():
        used = part.usage.since(before[name])
        stats.api[name] = used
        stats.tokens += used["tokens"]
        stats.cost_usd += used["estimated_cost_usd"] or 0.0


def load(ws: Workspace, folder: Path, name: str) -> Dataset:
    """The dataset in ``folder``, loaded once per process while its files are unchanged."""
    files = sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in folder.rglob("*") if p.is_file())
    return ws.remember("dataset", digest(str(folder), name, files), lambda: load_dataset(folder, name))


def chunk_dataset(
    ws: Workspace, dataset: Dataset, cfg: ChunkerConfig, embedder: Embedder, folder: Path | None = None
) -> tuple[Corpus, bool]:
    """All chunks of the dataset in corpus order, and whether they came from the cache.

    The key holds everything the chunks depend on: the documents, the settings, the embedder
    when it tokenizes (unit=tokens) or embeds (semantic, cluster), and the files they read.
    """
    fingerprint = digest(*((d.id, d.title, d.text) for d in dataset.documents))
    key = digest("chunks", fingerprint, chunk_dependencies(cfg, embedder, folder))
    store = ws.store(embedder, "document")

    def embed(texts):
        return embed_cached(embedder, store, texts, "document", label=f"chunking ({cfg.name})")[0]

    def compute():
        tools = ChunkerTools(
            token_spans=getattr(embedder, "token_spans", None),
            special_tokens=getattr(embedder, "special_tokens", 0),
            embed=embed,
            folder=folder,
        )
        chunker = build_chunker(cfg, tools)
        if isinstance(chunker, Warming):
            chunker.warm(dataset.documents)  # one batched, cached embedding pass for all documents
        return [c for d in dataset.documents for c in chunker.split(d)]

    chunks, cached = ws.cache.get_or_compute("chunks", key, compute)
    return Corpus(key, chunks), cached


def count_truncated(ws: Workspace, embedder: Embedder, corpus: Corpus) -> int:
    """Chunks whose indexed text exceeds the embedder's input limit (0 when it cannot count)."""
    if not hasattr(embedder, "count_tokens"):
        return 0
    key = digest("truncated", corpus.key, embedder.name)

    def count() -> int:
        return int((embedder.count_tokens(corpus.passages) > embedder.max_tokens).sum())

    return ws.remember("truncated", key, lambda: ws.cache.get_or_compute("truncated", key, count)[0])
