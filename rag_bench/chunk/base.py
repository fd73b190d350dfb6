"""The chunking stage: its protocol, its registry, and the shared chunk builder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from rag_bench.chunk.fixed import fixed_windows
from rag_bench.chunk.prefix import prefixer
from rag_bench.chunk.recursive import recursive_ranges
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

    def split(self, doc: Document) -> list[Chunk]:
        units = measure(doc.text, self.unit, self.token_spans, self.special_tokens)
        ranges = STRATEGIES[self.strategy](doc.text, units, self.size, self.overlap)
        return build_chunks(doc, ranges, self.prefix)


def build_chunks(doc: Document, ranges: list[tuple[int, int]], prefix: str = "none") -> list[Chunk]:
    """Chunks for ``ranges`` of ``doc``, trimmed of surrounding whitespace, empty ones dropped."""
    prefix_at = prefixer(prefix, doc)
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
        chunks.append(Chunk(doc.id, start, end, stripped, prefix_at(start)))
    return chunks


def resolve_overlap(size: int, overlap: float) -> int:
    """Overlap in units: ``overlap`` itself, or a fraction of ``size`` when below 1."""
    return round(overlap * size) if 0 < overlap < 1 else int(overlap)
