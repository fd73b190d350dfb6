"""BM25 search over a corpus's chunks for the labelling app, with the query terms located in each hit.

Documents are cut by the recursive chunker (``size`` characters, no overlap) and indexed
with BM25 over the identifier analyzer, as a ``retrieval=bm25`` run would; a hit is a chunk
(``doc_id``, ``start``, ``end``, text) plus the character ranges of the chunk text where a
query term occurs as a whole token (case-insensitive), for highlighting.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_bench.chunk.base import build_chunks
from rag_bench.chunk.recursive import recursive_ranges
from rag_bench.chunk.units import measure
from rag_bench.core.types import Chunk, Document
from rag_bench.index.bm25.analyzers import identifier_tokens
from rag_bench.index.bm25.index import BM25Index


@dataclass(frozen=True)
class Hit:
    """A chunk that matched, its BM25 score, and where the query terms occur in its text."""

    chunk: Chunk
    score: float
    highlights: tuple[tuple[int, int], ...]  # [start, end) into chunk.text

    def as_json(self, titles: dict[str, str | None]) -> dict:
        c = self.chunk
        return {
            "doc_id": c.doc_id,
            "title": titles.get(c.doc_id),
            "start": c.start,
            "end": c.end,
            "text": c.text,
            "score": self.score,
            "highlights": [list(h) for h in self.highlights],
        }


class CorpusSearch:
    """BM25 (identifier analyzer) over recursive chunks of ``documents``."""

    def __init__(self, documents: Sequence[Document], size: int = 800) -> None:
        self.chunks = [
            c for d in documents for c in build_chunks(d, recursive_ranges(d.text, measure(d.text, "chars"), size, 0))
        ]
        self.index = BM25Index.build([identifier_tokens(c.text) for c in self.chunks])

    def search(self, query: str, k: int = 20) -> list[Hit]:
        """The top ``k`` chunks holding a query term, best first (ties in corpus order)."""
        terms = identifier_tokens(query)
        if not terms or not self.chunks:
            return []
        indices, scores = self.index.search([terms], k)
        return [
            Hit(self.chunks[i], float(s), highlights(self.chunks[i].text, terms))
            for i, s in zip(indices[0].tolist(), scores[0].tolist(), strict=True)
            if i >= 0
        ]


def highlights(text: str, terms: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """Ranges of ``text`` where one of ``terms`` stands as a whole token, ignoring case.

    Example: ``highlights("Err_4021 and err_4021.", ["err_4021"])`` -> ((0, 8), (13, 21)).
    """
    if not terms:
        return ()
    alternatives = "|".join(
        re.escape(t).replace("'", "['\u2018\u2019]") for t in sorted(set(terms), key=len, reverse=True)
    )
    # a whole identifier token: no letter or digit, and no joiner-then-letter/digit, on either side
    pattern = re.compile(rf"(?<![^\W_])(?<![^\W_][-_./'])(?:{alternatives})(?![^\W_])(?![-_./'][^\W_])", re.IGNORECASE)
    found = [match.span() for match in pattern.finditer(text)]
    return tuple(found)
