"""Seeded random candidate lists for the strategies' reference tests (importable once this folder is on the path)."""

from __future__ import annotations

import numpy as np

from rag_bench.core.types import Chunk
from rag_bench.retrieve.base import Candidates


def random_lists(rng: np.random.Generator, chunks: list[Chunk], most: int, width: int, ties: float = 0.0) -> Candidates:
    """1 to ``most - 1`` lists of 1 to ``width - 1`` slots, each holding distinct chunks, best score first, the
    rest empty (-1, -inf); with probability ``ties`` a list's scores are all equal."""
    n, width = int(rng.integers(1, most)), int(rng.integers(1, width))
    indices = np.full((n, width), -1, dtype=np.int64)
    scores = np.full((n, width), -np.inf)
    for q in range(n):
        size = int(rng.integers(0, min(width, len(chunks)) + 1))
        indices[q, :size] = rng.choice(len(chunks), size, replace=False)
        scores[q, :size] = np.sort(rng.random(size))[::-1]
        if ties and rng.random() < ties:
            scores[q, :size] = 0.5  # equal scores
    return Candidates(chunks, indices, scores)
