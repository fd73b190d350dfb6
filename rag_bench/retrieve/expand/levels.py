"""Parent levels: the larger units a chunk belongs to (``expand.level``), and which parent each chunk has.

  section   the Markdown section holding the chunk: from a heading line (``#`` .. ``#`` * heading_depth,
            at a line start) to the next one; text before a document's first heading is a section too
  document  the whole document
  chunk     the run's chunker at ``expand.size`` (larger than ``chunker.size``, no overlap): parent chunks
Parents are trimmed of surrounding whitespace, as chunks are. A chunk's parent is the unit of its document
that holds the most of its characters (the first such); a chunk that crosses a section boundary belongs
to the section holding most of it, so its parent may not hold all of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from operator import attrgetter

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.core.options import one_of
from rag_bench.core.types import Chunk, Document

LEVELS = ("section", "document", "chunk")
HEADING = re.compile(r"^(#{1,6})[ \t]", re.MULTILINE)
Rechunk = Callable[[int], Sequence[Chunk]]  # parent size -> the corpus chunked again at that size


@dataclass
class LevelSettings:
    """Which parent a chunk returns as (``expand=parent``) or merges into (``expand=merge``)."""

    level: str = "section"  # section, document or chunk
    heading_depth: int = 6  # level=section: cut at headings of at most this many #s (2: ## sections)
    size: int = 2000  # level=chunk: the parent chunks' size, in the chunker's unit

    def check_level(self) -> None:
        one_of("expand.level", self.level, LEVELS)
        if not 1 <= self.heading_depth <= 6:
            raise ConfigError(f"expand.heading_depth ({self.heading_depth}) must lie between 1 and 6 (# to ######)")
        if self.size < 1:
            raise ConfigError(f"expand.size ({self.size}) must be at least 1")


@dataclass(frozen=True)
class Units:
    """Parent units as arrays: unit u is ``doc_ids[doc[u]][start[u]:end[u]]``; in corpus order."""

    doc_ids: list[str]
    doc: np.ndarray  # (n_units,) int64 index into doc_ids
    start: np.ndarray
    end: np.ndarray

    @staticmethod
    def of(chunks: Sequence[Chunk]) -> Units:
        number = {d: i for i, d in enumerate(dict.fromkeys(map(attrgetter("doc_id"), chunks)))}
        return Units(list(number), *chunk_spans(chunks, number))


@dataclass(frozen=True)
class Hierarchy:
    """Parents of one corpus: ``parent_of[c]`` indexes ``parents`` (-1: none), ``children[p]`` counts p's chunks."""

    units: Units
    parent_of: np.ndarray  # (n_chunks,) int64
    children: np.ndarray  # (n_parents,) int64
    chunks: Units | None = None  # the chunks' spans, documents numbered as the units' (-1: none of theirs)

    @cached_property
    def parents(self) -> list[Chunk]:
        """The units as chunks without their text (made when first asked for)."""
        u, ids = self.units, self.units.doc_ids
        return [
            Chunk(ids[d], s, e, "") for d, s, e in zip(u.doc.tolist(), u.start.tolist(), u.end.tolist(), strict=True)
        ]


def chunk_spans(chunks: Sequence[Chunk], number: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each chunk's document (its ``number``, -1 for one not in it), start and end, as (n,) int64 arrays."""
    n = len(chunks)
    doc = np.fromiter(map(number.get, map(attrgetter("doc_id"), chunks), repeat(-1)), dtype=np.int64, count=n)
    start = np.fromiter(map(attrgetter("start"), chunks), dtype=np.int64, count=n)
    return doc, start, np.fromiter(map(attrgetter("end"), chunks), dtype=np.int64, count=n)


def section_ranges(text: str, depth: int) -> list[tuple[int, int]]:
    """Ranges cut before every heading line of at most ``depth`` #s; together they cover ``text``."""
    cuts = [m.start() for m in HEADING.finditer(text) if len(m.group(1)) <= depth and m.start() > 0]
    bounds = [0, *cuts, len(text)]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def trimmed(doc: Document, ranges: Sequence[tuple[int, int]]) -> list[Chunk]:
    """Spans of ``ranges`` of ``doc`` trimmed of surrounding whitespace (ranges of whitespace alone dropped), as
    chunks without their text (a unit's text is taken from its document when it is returned)."""
    out = []
    for start, end in ranges:
        piece = doc.text[start:end]
        lead = len(piece) - len(piece.lstrip())
        if lead < len(piece):
            out.append(Chunk(doc.id, start + lead, end - (len(piece) - len(piece.rstrip())), ""))
    return out


def parent_units(
    level: str, depth: int, documents: Sequence[Document], rechunk: Rechunk | None, size: int
) -> list[Chunk]:
    """Every parent unit of the corpus at ``level``, in corpus order."""
    if level == "chunk":
        if rechunk is None:
            raise ConfigError(
                "expand.level=chunk needs the run's chunker to cut parents; use level=section or document"
            )
        return list(rechunk(size))
    if level == "document":
        return [u for d in documents for u in trimmed(d, [(0, len(d.text))])]
    return [u for d in documents for u in trimmed(d, section_ranges(d.text, depth))]


def assign(chunks: Sequence[Chunk], parents: Sequence[Chunk]) -> Hierarchy:
    """Each chunk's parent: the unit of its document holding most of its characters, the first of equal ones.

    Units of one document must not overlap and must come in order of their start (as ``parent_units`` makes
    them). Vectorised: unit j of a chunk's candidates is the one starting at or before the chunk, then the next
    ones while they start before its end.
    """
    return assign_units(chunks, Units.of(parents))


def assign_units(chunks: Sequence[Chunk], units: Units) -> Hierarchy:
    """``assign`` with the units as arrays; their documents must come in the order their units do."""
    number = {d: i for i, d in enumerate(units.doc_ids)}
    if len(units.doc) == 0 or not chunks:
        return Hierarchy(units, np.full(len(chunks), -1, dtype=np.int64), np.zeros(len(units.doc), np.int64))
    unit_doc, unit_start, unit_end = units.doc, units.start, units.end
    chunk_doc, chunk_start, chunk_end = chunk_spans(chunks, number)
    spans = Units(units.doc_ids, chunk_doc, chunk_start, chunk_end)
    n_units = len(unit_doc)
    span = max(int(unit_end.max(initial=0)), int(chunk_end.max(initial=0))) + 1
    keys = unit_doc * span + unit_start  # ascending: documents in order, units by start within each
    at = np.searchsorted(keys, chunk_doc * span + chunk_start, side="right") - 1
    at = np.where((at >= 0) & (unit_doc[np.maximum(at, 0)] == chunk_doc), at, -1)
    first_of_doc = np.searchsorted(unit_doc, chunk_doc)  # a chunk before its document's first unit starts there
    at = np.where((at < 0) & (chunk_doc >= 0), first_of_doc, at)
    parent_of = np.full(len(chunks), -1, dtype=np.int64)
    most = np.zeros(len(chunks), dtype=np.int64)
    candidate = at.copy()
    live = (candidate >= 0) & (candidate < n_units)
    while live.any():
        u = np.where(live, candidate, 0)
        live &= (unit_doc[u] == chunk_doc) & (unit_start[u] < chunk_end)
        held = np.minimum(chunk_end, unit_end[u]) - np.maximum(chunk_start, unit_start[u])
        better = live & (held > most)
        parent_of[better], most[better] = u[better], held[better]
        candidate = candidate + 1
        live &= candidate < n_units
    children = np.bincount(parent_of[parent_of >= 0], minlength=n_units).astype(np.int64)
    return Hierarchy(units, parent_of, children, spans)
