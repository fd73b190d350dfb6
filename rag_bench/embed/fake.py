"""A deterministic stand-in for the embedding stage (``embedder=fake``), beside the real embedders.

It needs no model or network: ``FakeEmbedder`` hashes words into a fixed number of buckets, so
texts that share words get similar vectors. Users' test suites import it from ``rag_bench.testing``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.embed.base import EmbedderConfig, normalise

WORD = re.compile(r"\w+|[^\w\s]")


@dataclass
class FakeConfig(EmbedderConfig):
    """Deterministic word hashing (``rag_bench.testing.FakeEmbedder``), for tests and dry runs."""

    name: str = "fake"
    dimension: int | None = 64


def build(cfg: FakeConfig) -> FakeEmbedder:
    """The embedder ``embedder=fake`` names."""
    return FakeEmbedder(cfg.dimension or 64)


class FakeEmbedder:
    """Signed feature hashing of lower-cased words (``embedder=fake``)."""

    special_tokens = 0
    max_tokens = 10**9

    def __init__(self, dimension: int = 64) -> None:
        self.dimension = dimension
        self.name = f"fake/hash-{dimension}"
        self.calls: list[tuple[int, str]] = []  # (batch size, input type) of each call

    def embed(self, texts: Sequence[str], input_type: str = "document") -> np.ndarray:
        self.calls.append((len(texts), input_type))
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in WORD.findall(text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
                out[row, h % self.dimension] += 1.0 if (h >> 32) & 1 else -1.0
        return normalise(out)

    def count_tokens(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([len(WORD.findall(t)) for t in texts], dtype=np.int64)

    def token_spans(self, text: str) -> np.ndarray:
        return np.array([m.span() for m in WORD.finditer(text)], dtype=np.int64).reshape(-1, 2)
