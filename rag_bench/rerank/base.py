"""The rerank stage: its protocol and how a reranker reorders fused candidates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


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
