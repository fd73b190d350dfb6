"""Recursive structure-aware splitting: headings, blank lines, lines, sentence ends, spaces.

Like LangChain's RecursiveCharacterTextSplitter, but on character offsets: a range
longer than ``size`` units is cut at the coarsest separator that occurs in it, each
too-long piece is cut again at the next separator, down to single characters, and
the pieces are then packed greedily into chunks (``merge_pieces``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_bench.chunk.base import Chunker, RangeChunker
from rag_bench.chunk.merge import merge_pieces
from rag_bench.chunk.settings import ChunkerTools, OverlapChunkerConfig
from rag_bench.chunk.units import Units

# Cut points, coarsest first; a cut falls at the end of each match.
SEPARATORS = (
    re.compile(r"\n(?=#{1,6} )"),  # before a Markdown heading
    re.compile(r"\n\s*\n"),  # blank line (paragraph)
    re.compile(r"\n"),  # line
    re.compile(r"(?<=[.!?])[\"')\]]*\s+"),  # sentence end
    re.compile(r"(?<=[;:,])\s+"),  # clause
    re.compile(r"\s+"),  # word
)


@dataclass
class RecursiveConfig(OverlapChunkerConfig):
    name: str = "recursive"


def build(cfg: RecursiveConfig, tools: ChunkerTools) -> Chunker:
    return RangeChunker(recursive_ranges, cfg.size, cfg.overlap_units, cfg.unit, cfg.prefix, tools)


def recursive_ranges(text: str, units: Units, size: int, overlap: int) -> list[tuple[int, int]]:
    """Chunk character ranges of ``text``, each at most ``size`` units where possible."""
    pieces = split_range(text, 0, len(text), units, size, 0)
    return merge_pieces(pieces, units, size, overlap)


def split_range(text: str, start: int, end: int, units: Units, size: int, level: int) -> list[tuple[int, int]]:
    """Contiguous pieces covering ``[start, end)``, each at most ``size`` units (or one character)."""
    if units.count(start, end) <= size or end - start <= 1:
        return [(start, end)]
    if level == len(SEPARATORS):
        return _character_pieces(start, end, units, size)
    cuts = [m.end() for m in SEPARATORS[level].finditer(text, start, end) if start < m.end() < end]
    if not cuts:
        return split_range(text, start, end, units, size, level + 1)
    pieces = []
    for a, b in zip([start, *cuts], [*cuts, end], strict=True):
        pieces.extend(split_range(text, a, b, units, size, level + 1))
    return pieces


def _character_pieces(start: int, end: int, units: Units, size: int) -> list[tuple[int, int]]:
    """Last resort for a run with no separator: cut it into ranges of at most ``size`` units."""
    pieces, a = [], start
    while a < end:
        b = a + 1
        while b < end and units.count(a, b + 1) <= size:
            b += 1
        pieces.append((a, b))
        a = b
    return pieces
