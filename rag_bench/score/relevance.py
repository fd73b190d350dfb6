"""Which chunks hit which evidence spans.

Chunk c hits span s when they lie in the same document and overlap by at least
``tau * min(len(c), len(s))`` characters (and by at least one character). A chunk
that overlaps a span at all "touches" it (used by precision_omega).

The comparison is exact: ``tau`` is taken as the decimal it is written as (0.55 is 55/100, not the
binary float just above it, for which 0.55 * 100 = 55.00000000000001) and the rule is checked in
integers, overlap * q >= p * min(len(c), len(s)) for tau = p/q in lowest terms, so an overlap exactly
at the threshold always hits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

import numpy as np

from rag_bench.core.types import Chunk, Span


class ChunkLocator:
    """Finds the chunks that overlap a character range, per document."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        by_doc: dict[str, list[int]] = defaultdict(list)
        for i, chunk in enumerate(chunks):
            by_doc[chunk.doc_id].append(i)
        self.chunks = chunks
        # per document: chunk indices sorted by start, their starts, and the running max of ends
        self._index = {}
        for doc_id, ids in by_doc.items():
            ids.sort(key=lambda i: (chunks[i].start, chunks[i].end))
            starts = np.array([chunks[i].start for i in ids])
            self._index[doc_id] = (np.array(ids), starts)

    def overlapping(self, span: Span) -> list[int]:
        """Indices of chunks sharing at least one character with ``span``."""
        if span.doc_id not in self._index:
            return []
        ids, starts = self._index[span.doc_id]
        stop = int(np.searchsorted(starts, span.end, side="left"))  # chunks starting before span end
        return [int(i) for i in ids[:stop] if self.chunks[i].end > span.start]


def overlap(chunk: Chunk, span: Span) -> int:
    """Characters ``chunk`` and ``span`` share (0 when in different documents)."""
    if chunk.doc_id != span.doc_id:
        return 0
    return max(0, min(chunk.end, span.end) - max(chunk.start, span.start))


def hits(chunk: Chunk, span: Span, tau: float) -> bool:
    """The relevance rule: overlap >= max(1, tau * min(len(chunk), len(span))), in exact arithmetic."""
    shared = overlap(chunk, span)
    p, q = tau_ratio(tau)
    return shared >= 1 and shared * q >= p * min(len(chunk), len(span))


@lru_cache(maxsize=64)
def tau_ratio(tau: float) -> tuple[int, int]:
    """``tau`` as the fraction p/q of its shortest decimal text: 0.55 -> (11, 20), 0.5 -> (1, 2), 1 -> (1, 1)."""
    exact = Fraction(repr(float(tau)))
    return exact.numerator, exact.denominator


def touching(locator: ChunkLocator, spans: Sequence[Span], tau: float) -> dict[int, frozenset[int]]:
    """Chunk index -> indices of the spans it hits, for every chunk touching any span.

    A touching chunk that hits no span maps to an empty set.
    """
    found: dict[int, set[int]] = {}
    for s, span in enumerate(spans):
        for c in locator.overlapping(span):
            found.setdefault(c, set())
            if hits(locator.chunks[c], span, tau):
                found[c].add(s)
    return {c: frozenset(s) for c, s in found.items()}
