"""Greedy packing of contiguous pieces into chunks of at most ``size`` units, with overlap."""

from __future__ import annotations

from rag_bench.chunk.units import Units


def merge_pieces(pieces: list[tuple[int, int]], units: Units, size: int, overlap: int) -> list[tuple[int, int]]:
    """Join adjacent pieces while the joined range measures at most ``size`` units.

    When the next piece does not fit, the current chunk is emitted and pieces are
    dropped from its front until what remains measures at most ``overlap`` units
    (and leaves room for the next piece); what remains starts the next chunk, so
    consecutive chunks share up to ``overlap`` units. A piece longer than ``size``
    on its own becomes its own chunk (callers split such pieces first).
    """
    chunks: list[tuple[int, int]] = []
    window: list[tuple[int, int]] = []
    for piece in pieces:
        if window and units.count(window[0][0], piece[1]) > size:
            chunks.append((window[0][0], window[-1][1]))
            while window and (
                units.count(window[0][0], window[-1][1]) > overlap or units.count(window[0][0], piece[1]) > size
            ):
                window.pop(0)
        window.append(piece)
    if window:
        chunks.append((window[0][0], window[-1][1]))
    return chunks
