"""Semantic chunking: cut between sentences where the meaning shifts (embedding breakpoints).

Each sentence i stands for the window of ``window`` sentences on either side of it (clipped at
the document's ends), and w_i is that window's unit vector, made one of two ways
(``window_vectors``):

- ``pooled``: each sentence is embedded once, alone, as the unit vector u_j, and
  w_i = normalise(sum_{j=max(0, i-window)}^{min(n-1, i+window)} u_j), the normalised mean of the
  window's sentence vectors (a zero sum stays zero). Each sentence is embedded once.
- ``joined``: w_i is the embedding of the window's joined text, as in LangChain's
  SemanticChunker; each sentence is embedded in up to 2 * window + 1 windows.

The similarity across the gap after sentence i is s_i = w_i . w_{i+1}. The text is cut after
sentence i when s_i < P_p(s), the p-th percentile (``threshold_percentile``, linear
interpolation) of that document's s. A chunk longer than ``max_size`` units is split further by
the recursive chunker. After G. Kamradt, "5 Levels of Text Splitting" (2024), as in LangChain's
SemanticChunker (percentile breakpoints).

Worked example (window 1, pooled): sentence vectors u = [a, a, b, b] with a . b = 0 give window
sums [2a, 2a + b, a + 2b, 2b], so s = [2/sqrt5, 4/5, 2/sqrt5] and the lowest gap is the middle one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from rag_bench.chunk.merge import merge_pieces
from rag_bench.chunk.recursive import split_range
from rag_bench.chunk.sentence import sentence_spans
from rag_bench.chunk.settings import ChunkerTools, SizedChunkerConfig
from rag_bench.chunk.units import Units
from rag_bench.core.errors import ConfigError
from rag_bench.core.options import one_of

Embed = Callable[[Sequence[str]], np.ndarray]  # texts -> (n, dim) float32 unit rows


WINDOW_VECTORS = ("pooled", "joined")  # how a window's vector is made (module docstring)


@dataclass(frozen=True)
class SemanticSplitter:
    """Sentence groups cut at similarity breakpoints, capped at ``max_size`` units."""

    max_size: int
    threshold_percentile: float = 5.0
    window: int = 1
    window_vectors: str = "pooled"

    def parts(self, text: str, units: Units) -> list[str]:
        """The texts ``ranges`` embeds: each sentence (pooled) or each sentence's window (joined); none for one."""
        sentences = content_sentences(text)
        return self.embedded_texts(text, sentences) if len(sentences) > 1 else []

    def embedded_texts(self, text: str, sentences: Sequence[tuple[int, int]]) -> list[str]:
        """One text per sentence: the sentence itself (pooled) or its window's text (joined)."""
        return sentence_windows(text, sentences, 0 if self.window_vectors == "pooled" else self.window)

    def ranges(self, text: str, units: Units, embed: Embed) -> list[tuple[int, int]]:
        sentences = content_sentences(text)
        if len(sentences) < 2:
            groups = sentences
        else:
            vectors = np.asarray(embed(self.embedded_texts(text, sentences)), dtype=np.float32)
            if self.window_vectors == "pooled" and self.window > 0:  # a window of one: the sentence's own vector
                vectors = pooled_windows(vectors, self.window)
            similarity = np.einsum("ij,ij->i", vectors[:-1], vectors[1:])  # (n - 1,) cosine across each gap
            groups = group_at_breaks(sentences, breakpoints(similarity, self.threshold_percentile))
        return [piece for start, end in groups for piece in cap(text, start, end, units, self.max_size)]


def pooled_windows(vectors: np.ndarray, window: int) -> np.ndarray:
    """(n, dim) float64 w_i = normalise(u_{i-window} + ... + u_{i+window}), clipped at both ends; zero sums stay 0."""
    n = len(vectors)
    prefix = np.zeros((n + 1, vectors.shape[1]), dtype=np.float64)  # prefix[j] = u_0 + ... + u_{j-1}
    np.cumsum(vectors, axis=0, dtype=np.float64, out=prefix[1:])
    index = np.arange(n)
    sums = prefix[np.minimum(n, index + window + 1)] - prefix[np.maximum(0, index - window)]
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    return sums / np.where(norms == 0, 1, norms)


def content_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence ranges that hold non-space text; a blank range joins the sentence before it."""
    out: list[tuple[int, int]] = []
    for start, end in sentence_spans(text):
        if text[start:end].strip():
            out.append((start, end))
        elif out:
            out[-1] = (out[-1][0], end)
    return out


def sentence_windows(text: str, sentences: Sequence[tuple[int, int]], window: int) -> list[str]:
    """For each sentence, the text from ``window`` sentences before it to ``window`` after it."""
    n = len(sentences)
    return [text[sentences[max(0, i - window)][0] : sentences[min(n - 1, i + window)][1]].strip() for i in range(n)]


def breakpoints(similarity: np.ndarray, percentile: float) -> list[int]:
    """Gaps i (after sentence i) whose similarity lies strictly below the ``percentile``-th percentile."""
    if similarity.size == 0:
        return []
    threshold = float(np.percentile(similarity, percentile))
    return [int(i) for i in np.flatnonzero(similarity < threshold)]


def group_at_breaks(sentences: Sequence[tuple[int, int]], breaks: Sequence[int]) -> list[tuple[int, int]]:
    """Character ranges of consecutive sentences, cut after each sentence index in ``breaks``."""
    groups, first = [], 0
    for i in [*breaks, len(sentences) - 1]:
        groups.append((sentences[first][0], sentences[i][1]))
        first = i + 1
    return groups


def cap(text: str, start: int, end: int, units: Units, max_size: int) -> list[tuple[int, int]]:
    """``[start, end)`` itself when it measures at most ``max_size`` units, else its recursive split."""
    if units.count(start, end) <= max_size:
        return [(start, end)]
    return merge_pieces(split_range(text, start, end, units, max_size, 0), units, max_size, 0)


@dataclass
class SemanticConfig(SizedChunkerConfig):
    name: str = "semantic"
    size: int = 1000  # with percentile 2: a mean chunk of ~676 characters on kestrel-kb (embedder=local, pooled)
    max_size: int | None = None  # most units in a chunk; null = size
    threshold_percentile: float = 2.0  # cut where neighbour similarity is below this percentile
    window: int = 1  # sentences on each side of a sentence in its window
    window_vectors: str = "pooled"  # pooled: mean of the sentences' vectors (each embedded once); joined: LangChain's

    embeds: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 <= self.threshold_percentile <= 100:
            raise ConfigError(f"chunker.threshold_percentile ({self.threshold_percentile}) must lie between 0 and 100")
        one_of("chunker.window_vectors", self.window_vectors, WINDOW_VECTORS)
        if self.window < 0:
            raise ConfigError(f"chunker.window ({self.window}) must not be negative")
        if self.max_size is not None and self.max_size < self.floor:
            raise ConfigError(
                f"chunker.max_size ({self.max_size}) must be at least {self.floor}, or null for chunker.size"
            )


def build(cfg: SemanticConfig, tools: ChunkerTools):
    from rag_bench.chunk.base import EmbeddingChunker

    splitter = SemanticSplitter(cfg.max_size or cfg.size, cfg.threshold_percentile, cfg.window, cfg.window_vectors)
    return EmbeddingChunker(splitter, cfg.unit, cfg.prefix, tools)
