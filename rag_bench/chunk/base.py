"""The chunking stage: its protocol, its registry, and the shared chunk builder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from rag_bench.chunk.cluster import ClusterSplitter
from rag_bench.chunk.contexts import Contexts
from rag_bench.chunk.fixed import fixed_windows
from rag_bench.chunk.langchain import langchain_ranges
from rag_bench.chunk.prefix import prefixer
from rag_bench.chunk.recursive import recursive_ranges
from rag_bench.chunk.semantic import SemanticSplitter
from rag_bench.chunk.sentence import sentence_ranges
from rag_bench.chunk.units import TokenSpans, Units, measure
from rag_bench.types import Chunk, Document


class Chunker(Protocol):
    """Cuts a document into chunks whose offsets index into ``doc.text``."""

    def split(self, doc: Document) -> list[Chunk]: ...


# name -> function (text, units, size, overlap) -> character ranges
STRATEGIES: dict[str, Callable[[str, Units, int, int], list[tuple[int, int]]]] = {
    "fixed": lambda text, units, size, overlap: fixed_windows(units, size, overlap),
    "recursive": recursive_ranges,
    "sentence": sentence_ranges,
    "langchain": langchain_ranges,
}

Embed = Callable[[Sequence[str]], np.ndarray]  # texts -> (n, dim) float32 unit rows (document mode)


class Splitter(Protocol):
    """Character ranges of a text, from the embeddings of its parts (semantic, cluster)."""

    def parts(self, text: str, units: Units) -> list[str]:
        """The texts that ``ranges`` will embed."""
        ...

    def ranges(self, text: str, units: Units, embed: Embed) -> list[tuple[int, int]]: ...


# name -> factory(chunker settings) -> Splitter: the strategies that need the embedder
EMBEDDING_STRATEGIES: dict[str, Callable[[Any], Splitter]] = {
    "semantic": lambda cfg: SemanticSplitter(cfg.max_size or cfg.size, cfg.threshold_percentile, cfg.window),
    "cluster": lambda cfg: ClusterSplitter(cfg.size, cfg.piece_size),
}


@dataclass(frozen=True)
class RangeChunker:
    """A chunker that computes character ranges with one of ``STRATEGIES``."""

    strategy: str
    size: int
    overlap: int
    unit: str = "chars"
    prefix: str = "none"
    token_spans: TokenSpans | None = None
    special_tokens: int = 0
    contexts: Contexts | None = None  # read when prefix == "contexts"

    def split(self, doc: Document) -> list[Chunk]:
        units = measure(doc.text, self.unit, self.token_spans, self.special_tokens)
        ranges = STRATEGIES[self.strategy](doc.text, units, self.size, self.overlap)
        return build_chunks(doc, ranges, self.prefix, self.contexts)


@dataclass(frozen=True)
class EmbeddingChunker:
    """A chunker whose ranges come from a ``Splitter`` that embeds parts of the text with ``embed``."""

    splitter: Splitter
    embed: Embed
    unit: str = "chars"
    prefix: str = "none"
    token_spans: TokenSpans | None = None
    special_tokens: int = 0
    contexts: Contexts | None = None

    def split(self, doc: Document) -> list[Chunk]:
        units = measure(doc.text, self.unit, self.token_spans, self.special_tokens)
        return build_chunks(doc, self.splitter.ranges(doc.text, units, self.embed), self.prefix, self.contexts)

    def warm(self, docs: Sequence[Document]) -> None:
        """Embed what splitting ``docs`` needs in one call (one progress bar; then ``split`` hits the cache)."""
        texts = []
        for doc in docs:
            units = measure(doc.text, self.unit, self.token_spans, self.special_tokens)
            texts.extend(self.splitter.parts(doc.text, units))
        if texts:
            self.embed(texts)


def build_chunks(
    doc: Document, ranges: list[tuple[int, int]], prefix: str = "none", contexts: Contexts | None = None
) -> list[Chunk]:
    """Chunks for ``ranges`` of ``doc``, trimmed of surrounding whitespace, empty ones dropped."""
    prefix_at = prefixer(prefix, doc, contexts)
    chunks, seen = [], set()
    for start, end in ranges:
        piece = doc.text[start:end]
        stripped = piece.strip()
        if not stripped:
            continue
        start += len(piece) - len(piece.lstrip())
        end = start + len(stripped)
        if (start, end) in seen:
            continue
        seen.add((start, end))
        chunks.append(Chunk(doc.id, start, end, stripped, prefix_at(start, end)))
    return chunks


def resolve_overlap(size: int, overlap: float) -> int:
    """Overlap in units: ``overlap`` itself, or a fraction of ``size`` when below 1."""
    return round(overlap * size) if 0 < overlap < 1 else int(overlap)
