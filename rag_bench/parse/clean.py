"""Cleaning after parsing: lines repeated across a file's pages, or across files, are boilerplate.

A line's key is its text with whitespace runs as one space and every run of digits as ``#``, so
"Page 3 of 12" and "Page 4 of 12" share a key. With ``repeated=pages``, a key found among the first or
last ``EDGE`` non-blank lines of at least ``max(2, ceil(share * pages))`` pages of one file is a running
header or footer, and those edge lines are removed. With ``repeated=documents``, also a key found in at
least ``max(3, ceil(share * files))`` parsed files (menus, cookie banners, footers) is removed wherever
it stands. Keys without a letter (table rules ``|---|``) and lines over ``LONGEST`` characters are
never boilerplate. Files read as stored (``.md``, ``.txt``) are never cleaned: their offsets are labels'.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

EDGE = 3  # lines at the top and at the bottom of a page where running headers and footers sit
LONGEST = 200  # characters: a longer line is content
_DIGITS = re.compile(r"\d+")


def key(line: str) -> str | None:
    """The line's boilerplate key, or None for a line that never counts (blank, no letter, too long)."""
    text = " ".join(line.split())
    if not text or len(text) > LONGEST or not any(c.isalpha() for c in text):
        return None
    return _DIGITS.sub("#", text)


def _edges(page: str) -> list[str]:
    return [line for _, line in _edge_positions(page)]


def page_repeats(pages: Sequence[str], share: float) -> set[str]:
    """Keys of the lines repeated at the edges of at least ``max(2, ceil(share * len(pages)))`` pages."""
    if len(pages) < 2:
        return set()
    counts = Counter(k for page in pages for k in {key(line) for line in _edges(page)} if k)
    need = max(2, math.ceil(share * len(pages)))
    return {k for k, n in counts.items() if n >= need}


def file_repeats(files: Sequence[Sequence[str]], share: float) -> set[str]:
    """Keys of the lines found in at least ``max(3, ceil(share * len(files)))`` of ``files`` (each its pages)."""
    counts = Counter(k for pages in files for k in {key(line) for page in pages for line in page.splitlines()} if k)
    need = max(3, math.ceil(share * len(files)))
    return {k for k, n in counts.items() if n >= need}


def strip_pages(pages: Sequence[str], edge_keys: set[str], any_keys: set[str]) -> tuple[tuple[str, ...], int]:
    """The pages without their boilerplate lines (``edge_keys`` at page edges, ``any_keys`` anywhere) and the
    number of lines removed."""
    out, removed = [], 0
    for page in pages:
        edges = {id_ for id_, _ in _edge_positions(page)}
        kept = []
        for i, line in enumerate(page.splitlines()):
            k = key(line)
            if k is not None and (k in any_keys or (i in edges and k in edge_keys)):
                removed += 1
                continue
            kept.append(line)
        out.append("\n".join(kept))
    return tuple(out), removed


def _edge_positions(page: str) -> list[tuple[int, str]]:
    """(line index, line) of the edge lines of a page (as ``_edges`` picks them)."""
    lines = [(i, line) for i, line in enumerate(page.splitlines()) if line.strip()]
    return lines[:EDGE] + lines[EDGE:][-EDGE:]


def join(pages: Sequence[str]) -> tuple[str, tuple[int, ...]]:
    """The pages as one text, separated by a blank line, and the offset where each page starts."""
    parts, starts, at = [], [], 0
    for i, page in enumerate(pages):
        page = page.strip("\n")
        if i:
            parts.append("\n\n")
            at += 2
        starts.append(at)
        parts.append(page)
        at += len(page)
    return "".join(parts), tuple(starts)
