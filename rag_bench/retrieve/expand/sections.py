"""The parent units of a whole corpus at once, as arrays (``levels.Units``): the units ``levels.parent_units``
makes, found without a Python step per unit.

Sections: heading lines (a line break, then at most ``heading_depth`` #s and a space or tab) found in
one pass (on ASCII bytes as arrays, else by a regex) over the documents' texts joined by line breaks,
so a heading at a line start of a document is one in the joined text, and a document's first line
follows the joining line break. Trimming looks only at
the characters next to each cut: a range starts at a cut's "#" (no whitespace to trim) or at its
document's start (the document's leading whitespace), and ends where the whitespace before the next cut,
or the document's trailing whitespace, begins. On ASCII texts these runs are measured for all cuts at
once on their bytes, one character step at a time over the cuts whose run goes on (str.strip's ASCII
whitespace); a run of ``_RUN`` or more characters and any other text are measured by ``str.rstrip``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from rag_bench.core.types import Document
from rag_bench.index.bm25 import compiled
from rag_bench.retrieve.expand.levels import Rechunk, Units, parent_units

_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True  # str.isspace on ASCII
_RUN = 16  # characters looked at next to each cut at once
_BLOCK = 1 << 20  # bytes looked at together for headings: arrays of at most 1 MB, under the 4 MB from
# which numpy asks for huge pages, whose first touch can cost a busy machine tens of milliseconds


def level_units(level: str, depth: int, documents: Sequence[Document], rechunk: Rechunk | None, size: int) -> Units:
    """``parent_units`` as arrays, in the same order."""
    if level == "chunk":
        return Units.of(parent_units(level, depth, documents, rechunk, size))
    texts = [d.text for d in documents]
    ids = [d.id for d in documents]
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    offsets = np.cumsum(lengths + 1) - lengths - 1  # each document's start in the joined text
    joined = "\n".join(texts)
    raw = np.frombuffer(joined.encode("ascii"), dtype=np.uint8) if joined and joined.isascii() else None
    lead = _leading(joined, raw, offsets, offsets + lengths)  # each document trimmed
    tail = _trimmed_ends(joined, raw, offsets + lengths, offsets) - offsets
    if level == "document":
        keep = tail > lead
        return Units(ids, np.flatnonzero(keep), lead[keep], tail[keep])
    cuts = _heading_starts(joined, raw, depth)
    doc_of_cut = np.searchsorted(offsets, cuts, side="right") - 1
    inside = cuts > offsets[doc_of_cut]  # a heading at a document's start cuts nothing
    cuts, doc_of_cut = cuts[inside], doc_of_cut[inside]
    before = _trimmed_ends(joined, raw, cuts, offsets[doc_of_cut]) - offsets[doc_of_cut]
    order = np.argsort(np.r_[offsets, cuts], kind="stable")  # documents' first ranges and cuts, in text order
    doc = np.r_[np.arange(len(texts)), doc_of_cut][order]
    start = np.r_[lead, cuts - offsets[doc_of_cut]][order]  # a range after a cut starts at its "#"
    cut_end = np.r_[np.zeros(len(texts), np.int64), before][order]
    follows = np.r_[doc[1:] == doc[:-1], False]  # a range of the same document follows: it ends at that cut
    end = np.where(follows, np.r_[cut_end[1:], 0], tail[doc])
    keep = end > start
    return Units(ids, doc[keep], start[keep], end[keep])


def _heading_starts(text: str, raw: np.ndarray | None, depth: int) -> np.ndarray:
    """Where each heading of at most ``depth`` #s that follows a line break starts (its first "#"): the
    matches of ``\\n#{1,depth}[ \\t]``, found on ASCII bytes as arrays (a line break, then a run of 1 to
    ``depth`` "#"s, then a space or tab), ``_BLOCK`` bytes at a time."""
    if raw is None:
        heading = re.compile(rf"\n#{{1,{depth}}}[ \t]")
        return np.array([m.start() + 1 for m in heading.finditer(text)], dtype=np.int64)
    if compiled.LOOPS is not None:  # the same scan in C (memchr from line break to line break)
        return np.frombuffer(compiled.LOOPS.heading_starts(raw, depth), dtype=np.int64)
    n, parts = len(raw), []
    for low in range(0, n, _BLOCK):
        at = np.flatnonzero(raw[low : low + _BLOCK] == 10) + (low + 1)  # after each line break
        at = at[at < n]
        at = at[raw[at] == 35]
        hashes = np.ones(len(at), dtype=bool)  # raw[at : at + k] are all "#"
        found = np.zeros(len(at), dtype=bool)
        for k in range(1, depth + 1):
            after = np.where(at + k < n, raw[np.minimum(at + k, n - 1)], 0)  # past the end: no "#", space or tab
            found |= hashes & ((after == 32) | (after == 9))
            hashes &= after == 35
        parts.append(at[found])
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _trimmed_ends(text: str, raw: np.ndarray | None, at: np.ndarray, low: np.ndarray) -> np.ndarray:
    """For each i: where ``text[low[i]:at[i]]`` ends once trimmed of trailing whitespace (an index of text)."""
    out = at.copy()
    open_ = np.arange(len(at)) if raw is not None else np.zeros(0, np.int64)  # whitespace all the way so far
    for k in range(_RUN if raw is not None else 0):  # character at[i] - 1 - k of the points still open
        before = at[open_] - 1 - k
        space = (before >= low[open_]) & _SPACE[raw[np.maximum(before, 0)]]
        open_ = open_[space]
        out[open_] = before[space]
    slow = open_ if raw is not None else np.arange(len(at))  # a run of _RUN or more spaces, or not ASCII
    for i in slow.tolist():
        out[i] = low[i] + len(text[low[i] : at[i]].rstrip())
    return out


def _leading(text: str, raw: np.ndarray | None, start: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """For each i: the length of the whitespace that begins ``text[start[i]:stop[i]]``."""
    out = np.zeros(len(start), dtype=np.int64)
    open_ = np.arange(len(start)) if raw is not None else np.zeros(0, np.int64)
    for k in range(_RUN if raw is not None else 0):
        after = start[open_] + k
        space = (after < stop[open_]) & _SPACE[raw[np.minimum(after, len(raw) - 1)]]
        open_ = open_[space]
        out[open_] = k + 1
    slow = open_ if raw is not None else np.arange(len(start))
    for i in slow.tolist():
        piece = text[start[i] : stop[i]]
        out[i] = len(piece) - len(piece.lstrip())
    return out
