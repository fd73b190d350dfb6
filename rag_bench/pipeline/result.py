"""What a run produced, before it is written out: ``RunResult`` (the rankings, their scores, the evaluation)
and its ``Stats`` (what it computed and reused, and how long each stage took)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from rag_bench.config.schema import Config
from rag_bench.core.types import Chunk, Dataset
from rag_bench.retrieve.base import Candidates
from rag_bench.score.evaluate import Evaluation


@dataclass
class Stats:
    """What a run computed and what it reused, and how long each stage took."""

    chunks: int = 0
    mean_chunk_chars: float = 0.0
    embedded: int = 0  # texts newly embedded in this run, every stage (chunking, retrieval, reranking)
    cache_hits: int = 0  # chunk and question texts whose dense vectors came from the cache
    truncated: int = 0  # chunks longer than the embedder's input limit
    ann_recall: float | None = None  # retrieval.index=hnsw: recall of its top depth against exact search
    filtered_ann_recall: float | None = None  # the same over filtered questions, against exact filtered search
    index: dict[str, object] = field(default_factory=dict)  # the dense index's build, size and latency report
    index_bytes: int = 0
    tokens: int = 0  # billed API tokens (embedding and reranking) in this run
    cost_usd: float = 0.0  # estimated API cost of this run (configs/prices.yaml)
    api: dict[str, dict] = field(default_factory=dict)  # per API component: requests, retries, tokens, cost
    reused: dict[str, bool] = field(default_factory=dict)  # stage -> served from the cache
    seconds: dict[str, float] = field(default_factory=dict)
    retriever: str = ""  # what produced the ranking: "bm25", "http http://...", "hybrid(external run.jsonl, bm25)"
    retrieval: dict[str, dict] = field(default_factory=dict)  # retriever name -> what only it reports (details)
    strategies: dict[str, dict] = field(default_factory=dict)  # expand, diversity -> option, cost, chars returned
    parse: dict[str, object] = field(default_factory=dict)  # files parsed and from cache, evidence lost (run.py)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start


@dataclass
class RunResult:
    """Everything a run produced, before it is written out.

    ``stages`` holds each ranked list on the way to the final one, every one over ``chunks``:
    the first-stage lists by retriever name ("bm25", "dense", ...), "fused" when a fusion ran,
    "expanded" and "diversified" when those steps ran, and "reranked" when a reranker ran. A step
    may add units to the table after its chunks, so every list indexes the final ``chunks``.
    """

    config: Config
    dataset: Dataset
    chunks: Sequence[Chunk]  # the chunk table ``ranked`` indexes: the corpus for rag-bench's own indexes
    ranked: np.ndarray  # (n_questions, width) chunk indices, best first, -1 padded
    scores: np.ndarray  # (n_questions, width) final scores
    evaluation: Evaluation
    stats: Stats
    stages: dict[str, Candidates] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # more run-folder files (name -> text): an index's SQL
    # every first-stage list went through the candidate cache (rag-bench's own retrievers), so the run's
    # results depend on nothing its config and files do not name, and its outputs may be served again
    reusable: bool = False
