"""Sentence chunking: whole sentences packed greedily up to ``size`` units."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_bench.chunk.base import Chunker, RangeChunker
from rag_bench.chunk.merge import merge_pieces
from rag_bench.chunk.recursive import split_range
from rag_bench.chunk.settings import ChunkerTools, OverlapChunkerConfig
from rag_bench.chunk.units import Units

# A sentence ends at . ! or ? (plus closing quotes/brackets) before whitespace, or at a line break.
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")


@dataclass
class SentenceConfig(OverlapChunkerConfig):
    name: str = "sentence"


def build(cfg: SentenceConfig, tools: ChunkerTools) -> Chunker:
    return RangeChunker(sentence_ranges, cfg.size, cfg.overlap_units, cfg.unit, cfg.prefix, tools)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Contiguous ranges covering ``text``, one per sentence (trailing whitespace included)."""
    cuts = [m.end() for m in _BOUNDARY.finditer(text) if 0 < m.end() < len(text)]
    return list(zip([0, *cuts], [*cuts, len(text)], strict=True)) if text else []


def sentence_ranges(text: str, units: Units, size: int, overlap: int) -> list[tuple[int, int]]:
    """Chunk character ranges made of whole sentences; an over-long sentence is split at words."""
    pieces = []
    for start, end in sentence_spans(text):
        pieces.extend(split_range(text, start, end, units, size, level=3))
    return merge_pieces(pieces, units, size, overlap)
