"""Fixed-size chunking: windows of ``size`` units that step by ``size - overlap`` units."""

from __future__ import annotations

from dataclasses import dataclass

from rag_bench.chunk.base import Chunker, RangeChunker
from rag_bench.chunk.settings import ChunkerTools, OverlapChunkerConfig
from rag_bench.chunk.units import Units


@dataclass
class FixedConfig(OverlapChunkerConfig):
    name: str = "fixed"


def build(cfg: FixedConfig, tools: ChunkerTools) -> Chunker:
    return RangeChunker(fixed_ranges, cfg.size, cfg.overlap_units, cfg.unit, cfg.prefix, tools)


def fixed_ranges(text: str, units: Units, size: int, overlap: int) -> list[tuple[int, int]]:
    return fixed_windows(units, size, overlap)


def fixed_windows(units: Units, size: int, overlap: int) -> list[tuple[int, int]]:
    """Character ranges of consecutive windows of ``size`` units overlapping by ``overlap``.

    ``size`` includes the special units of a token count, so a window holds
    ``size - units.special`` real units. The last window ends at the last unit;
    no window lies wholly inside the one before it.
    Example (chars, size 4, overlap 1, text "abcdefghij"): [0,4) [3,7) [6,10).
    """
    n, width = len(units), size - units.special
    if n == 0:
        return []
    step = max(1, width - overlap)
    ranges, first = [], 0
    while True:
        last = min(first + width, n) - 1
        ranges.append((int(units.starts[first]), int(units.ends[last])))
        if last == n - 1:
            return ranges
        first += step
