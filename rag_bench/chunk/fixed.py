"""Fixed-size chunking: windows of ``size`` units that step by ``size - overlap`` units."""

from __future__ import annotations

from rag_bench.chunk.units import Units


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
