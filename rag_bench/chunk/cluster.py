"""Cluster chunking: consecutive pieces grouped by a dynamic programme that maximises within-chunk similarity.

The text is cut into pieces of about ``piece_size`` units by the recursive splitter and
each piece is embedded. With s_ab the cosine similarity of pieces a and b, and mu the mean
of s_ab over all pairs a < b of the document, a chunk C of consecutive pieces earns

    reward(C) = sum over a != b in C of (s_ab - mu)

(pairs more alike than the document's average add, pairs less alike subtract, one piece
alone earns 0). The chunking maximises the sum of rewards over its chunks, subject to each
chunk measuring at most ``size`` units:

    best[0] = 0,  best[j] = max over i < j with pieces i..j-1 fitting of best[i] + reward(i, j)

This is the objective of Chroma's ClusterSemanticChunker (B. Smith and A. Troynikov,
"Evaluating Chunking Strategies for Retrieval", Chroma technical report, 2024), with the
limit measured in units instead of a number of pieces. With unit vectors e_a and prefix
sums E_j = e_0 + ... + e_{j-1}, sum over a != b in [i, j) of s_ab = |E_j - E_i|^2 - (j - i),
so each reward costs O(dim) and memory stays O(n dim).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from rag_bench.chunk.recursive import recursive_ranges
from rag_bench.chunk.settings import ChunkerTools, SizedChunkerConfig
from rag_bench.chunk.units import Units
from rag_bench.core.errors import ConfigError

Embed = Callable[[Sequence[str]], np.ndarray]  # texts -> (n, dim) float32 unit rows
# (starts of candidate chunks, end) -> reward of each chunk [start, end) of pieces
Reward = Callable[[np.ndarray, int], np.ndarray]


@dataclass(frozen=True)
class ClusterSplitter:
    """Pieces of about ``piece_size`` units grouped into chunks of at most ``size`` units."""

    size: int
    piece_size: int = 50

    def pieces(self, text: str, units: Units) -> list[tuple[int, int]]:
        """Contiguous ranges of about ``piece_size`` units that hold non-space text."""
        return [(a, b) for a, b in recursive_ranges(text, units, self.piece_size, 0) if text[a:b].strip()]

    def parts(self, text: str, units: Units) -> list[str]:
        """The texts ``ranges`` embeds: the pieces (none for a single piece)."""
        pieces = self.pieces(text, units)
        return [text[a:b].strip() for a, b in pieces] if len(pieces) > 1 else []

    def ranges(self, text: str, units: Units, embed: Embed) -> list[tuple[int, int]]:
        pieces = self.pieces(text, units)
        if len(pieces) < 2:
            return pieces
        vectors = np.asarray(embed([text[a:b].strip() for a, b in pieces]), dtype=np.float64)
        segments = best_segmentation(first_starts(pieces, units, self.size), vector_reward(vectors))
        return [(pieces[i][0], pieces[j - 1][1]) for i, j in segments]


def first_starts(pieces: Sequence[tuple[int, int]], units: Units, size: int) -> list[int]:
    """For each end j (1..n), the first piece i such that pieces i..j-1 measure at most ``size`` units.

    A single piece is always allowed, so entry j is at most j - 1; entry 0 is unused (0).
    """
    out, i = [0], 0
    for j in range(1, len(pieces) + 1):
        while i < j - 1 and units.count(pieces[i][0], pieces[j - 1][1]) > size:
            i += 1
        out.append(i)
    return out


def vector_reward(vectors: np.ndarray) -> Reward:
    """reward(i, j) = sum over a != b in [i, j) of (e_a . e_b - mu), from prefix sums of the vectors."""
    n = len(vectors)
    sums = np.vstack([np.zeros((1, vectors.shape[1])), np.cumsum(vectors, axis=0)])  # (n + 1, dim)
    squares = np.concatenate([[0.0], np.cumsum(np.einsum("ij,ij->i", vectors, vectors))])  # (n + 1,)
    total = float(sums[n] @ sums[n]) - squares[n]
    mu = total / (n * (n - 1)) if n > 1 else 0.0

    def reward(starts: np.ndarray, end: int) -> np.ndarray:
        diff = sums[end] - sums[starts]  # (len(starts), dim)
        m = end - starts
        return np.einsum("ij,ij->i", diff, diff) - (squares[end] - squares[starts]) - mu * m * (m - 1)

    return reward


def matrix_reward(similarity: np.ndarray) -> Reward:
    """reward(i, j) = sum over a != b in [i, j) of (s_ab - mu), straight from a similarity matrix."""
    s = np.asarray(similarity, dtype=np.float64)
    n = len(s)
    mu = float(s[np.triu_indices(n, k=1)].mean()) if n > 1 else 0.0
    shifted = s - mu
    np.fill_diagonal(shifted, 0.0)

    def reward(starts: np.ndarray, end: int) -> np.ndarray:
        return np.array([shifted[i:end, i:end].sum() for i in starts])

    return reward


def best_segmentation(first: Sequence[int], reward: Reward) -> list[tuple[int, int]]:
    """Piece ranges ``[i, j)`` covering pieces 0..n-1 that maximise the summed reward.

    ``first[j]`` is the earliest start allowed for a chunk ending at piece j (exclusive);
    ties go to the earliest start (the longer last chunk).
    """
    n = len(first) - 1
    best = np.zeros(n + 1)
    back = np.zeros(n + 1, dtype=np.int64)
    for j in range(1, n + 1):
        starts = np.arange(first[j], j)
        totals = best[starts] + reward(starts, j)
        k = int(np.argmax(totals))
        best[j], back[j] = totals[k], starts[k]
    segments, j = [], n
    while j > 0:
        segments.append((int(back[j]), j))
        j = int(back[j])
    return segments[::-1]


@dataclass
class ClusterConfig(SizedChunkerConfig):
    name: str = "cluster"
    size: int = 1400  # with pieces of 300: a mean chunk of ~680 characters on kestrel-kb (embedder=local)
    piece_size: int = 300  # units per piece that the dynamic programme groups

    embeds: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.floor <= self.piece_size <= self.size:
            raise ConfigError(
                f"chunker.piece_size ({self.piece_size}) must lie between {self.floor} and chunker.size ({self.size})"
            )


def build(cfg: ClusterConfig, tools: ChunkerTools):
    from rag_bench.chunk.base import EmbeddingChunker

    return EmbeddingChunker(ClusterSplitter(cfg.size, cfg.piece_size), cfg.unit, cfg.prefix, tools)
