"""A deterministic stand-in for the rerank stage (``reranker=fake``), beside the real rerankers.

It needs no model or network: ``FakeReranker`` scores word overlap. Users' test suites import it
from ``rag_bench.testing``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.embed.fake import WORD
from rag_bench.rerank.base import CutRerankerConfig


@dataclass
class FakeRerankerConfig(CutRerankerConfig):
    """Word overlap with the question (``rag_bench.testing.FakeReranker``), for tests."""

    name: str = "fake"


def build(cfg: FakeRerankerConfig, ws: object) -> FakeReranker:
    """The reranker ``reranker=fake`` names."""
    return FakeReranker()


class FakeReranker:
    """Scores a passage by the share of the question's words it contains."""

    name = "fake/overlap"

    def score(self, question: str, passages: Sequence[str]) -> np.ndarray:
        words = set(WORD.findall(question.lower()))
        return np.array(
            [len(words & set(WORD.findall(p.lower()))) / max(1, len(words)) for p in passages],
            dtype=np.float64,
        )
