"""Find an excerpt in a parse's text despite what parsers do to text: the loose level after ``locate.py``'s two.

PDF line wraps and hyphenation, Markdown and HTML markup, ligatures, typographic quotes and page joins
change a text without changing its words. The loose match compares both texts after mapping each
character through Unicode NFKC and the quote/dash table of ``locate.py``, then dropping:
  - whitespace (line wraps, reflowed table cells, spaces a PDF inserts or loses),
  - hyphens and dashes (``infor-\\nmation`` and ``information`` meet; so do ``well-known`` and ``wellknown``),
  - Markdown and table markup ``* _ ` \\ # > | ~`` and HTML tags (``<b>``),
  - soft hyphens and zero-width characters,
and reports the match as offsets into the original text (first to last matched character). Case is kept
and no word may change. Example: text ``"the **infor-\\nmation** | x"``, excerpt ``"the information"``:
loose match [0, 19) (from "the" to the end of "mation").

``nearest`` finds, for an excerpt no level matches, the stretch of the text most like it (for messages).
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from dataclasses import dataclass

from rag_bench.data.locate import _ASCII

_DROP = frozenset("*_`\\#>|~-\u00ad\u200b\u200c\u200d\u2060\ufeff")
_TAG = re.compile(r"</?[A-Za-z][^<>]{0,300}>")


@dataclass(frozen=True)
class Found:
    """Every place the excerpt matched loosely, as ``(start, end)`` offsets into the original text."""

    places: tuple[tuple[int, int], ...]


@functools.lru_cache(maxsize=256)
def loose(text: str) -> tuple[str, tuple[int, ...]]:
    """The loose form of ``text`` and, for each of its characters, the index of the original it came from."""
    tags = [m.span() for m in _TAG.finditer(text)]
    out: list[str] = []
    origin: list[int] = []
    t = 0
    for i, ch in enumerate(text):
        while t < len(tags) and tags[t][1] <= i:
            t += 1
        if t < len(tags) and tags[t][0] <= i < tags[t][1]:
            continue
        for piece in unicodedata.normalize("NFKC", ch).translate(_ASCII):
            if piece.isspace() or piece in _DROP:
                continue
            out.append(piece)
            origin.append(i)
    return "".join(out), tuple(origin)


def find_loose(text: str, excerpt: str) -> Found:
    """Every loose occurrence of ``excerpt`` in ``text`` (none when the excerpt has no characters left)."""
    norm, origin = loose(text)
    needle = loose(excerpt)[0]
    if not needle:
        return Found(())
    places = []
    at = norm.find(needle)
    while at >= 0:
        places.append((origin[at], origin[at + len(needle) - 1] + 1))
        at = norm.find(needle, at + 1)
    return Found(tuple(places))


@dataclass(frozen=True)
class Nearest:
    """The stretch ``[start, end)`` of a text most like an excerpt, and how alike (difflib's ratio, 0..1)."""

    start: int
    end: int
    similarity: float


def nearest(text: str, excerpt: str) -> Nearest | None:
    """The stretch of ``text`` most like ``excerpt``: around the longest block they share, in loose form."""
    norm, origin = loose(text)
    needle = loose(excerpt)[0]
    if not norm or not needle:
        return None
    block = difflib.SequenceMatcher(None, norm, needle, autojunk=False).find_longest_match(0, len(norm), 0, len(needle))
    if block.size == 0:
        return None
    lo = max(0, block.a - block.b)
    hi = min(len(norm), lo + len(needle))
    ratio = difflib.SequenceMatcher(None, norm[lo:hi], needle, autojunk=False).ratio()
    return Nearest(origin[lo], origin[hi - 1] + 1, round(ratio, 2))


def describe(text: str, excerpt: str) -> str:
    """``nearest match 'the informat...' at [120, 180), 83% alike`` or ``no similar text``."""
    near = nearest(text, excerpt)
    if near is None:
        return "no similar text"
    shown = " ".join(text[near.start : near.end].split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"nearest match {shown!r} at [{near.start}, {near.end}), {near.similarity:.0%} alike"
