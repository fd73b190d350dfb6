"""The rerank stage: its protocol, the settings every reranker shares, and how a reranker reorders candidates."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from omegaconf import MISSING

from rag_bench.core.errors import ConfigError


@dataclass
class RerankerConfig:
    """Every reranker: its name."""

    name: str = MISSING


@dataclass
class NoRerankerConfig(RerankerConfig):
    """Keep the fused order (``reranker=none``)."""

    name: str = "none"


@dataclass
class CutRerankerConfig(RerankerConfig):
    """A reranker over the top ``depth`` fused candidates, with the list cut at ``keep`` after it."""

    depth: int = 20  # fused candidates sent to the reranker
    keep: int | None = None  # rank cut-off after reranking; null = keep every candidate

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise ConfigError(f"reranker.depth ({self.depth}) must be at least 1")
        if self.keep is not None and self.keep < 1:
            raise ConfigError(f"reranker.keep ({self.keep}) must be at least 1, or null to keep every candidate")


class Reranker(Protocol):
    """Scores passages for a question; higher is more relevant."""

    name: str

    def score(self, question: str, passages: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class Prefetching(Protocol):
    """A reranker that scores better given every question's candidates at once (batched, concurrent)."""

    def prefetch(self, questions: Sequence[str], candidates: Sequence[Sequence[str]]) -> None: ...


def rerank(
    ranked: np.ndarray,
    questions: Sequence[str],
    passages: Sequence[str],
    reranker: Reranker,
    depth: int,
    keep: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Reorder the top ``depth`` candidates of each row by reranker score, then keep ``keep``.

    ``ranked`` is (n_questions, width) chunk indices, -1 padded; ``passages`` the
    indexed text of every chunk. The reranked head keeps its new order (ties by chunk
    order); candidates below ``depth`` follow in their fused order with score -inf.
    ``keep`` (the cut-off a RAG prompt would use) drops everything below that rank.
    """
    out = ranked.copy()
    scores = np.full(ranked.shape, -np.inf)
    for q, row in enumerate(ranked):
        head = row[:depth][row[:depth] >= 0]
        if head.size == 0:
            continue
        values = np.asarray(reranker.score(questions[q], [passages[c] for c in head]), dtype=np.float64)
        # order by score, then by chunk index (corpus order)
        order = np.lexsort((head, -values))
        out[q, : head.size] = head[order]
        scores[q, : head.size] = values[order]
    if keep is not None:
        out[:, keep:], scores[:, keep:] = -1, -np.inf
    return out, scores
