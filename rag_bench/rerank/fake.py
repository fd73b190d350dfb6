"""A deterministic stand-in for the rerank stage (``reranker=fake``), beside the real rerankers.

It needs no model or network: ``FakeReranker`` scores word overlap. Users' test suites import it
from ``rag_bench.testing``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag_bench.embed.fake import WORD


class FakeReranker:
    """Scores a passage by the share of the question's words it contains."""

    name = "fake/overlap"

    def score(self, question: str, passages: Sequence[str]) -> np.ndarray:
        words = set(WORD.findall(question.lower()))
        return np.array(
            [len(words & set(WORD.findall(p.lower()))) / max(1, len(words)) for p in passages],
            dtype=np.float64,
        )
