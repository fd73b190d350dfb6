"""Find an excerpt in a document: verbatim, else after normalising whitespace and Unicode.

Text produced elsewhere (an external retriever's chunk text, an LLM's quoted evidence) is
often the document's text with its whitespace reflowed or its characters normalised. The
tolerant match compares both texts after mapping each character through:
  1. Unicode NFKC (compatibility forms: ``ﬁ`` -> ``fi``, no-break space -> space, full-width
     letters -> ASCII),
  2. typographic quotes and dashes to ASCII (``“ ” ‘ ’`` -> ``" '``, ``– —`` -> ``-``),
  3. every run of whitespace to one space (and the excerpt's own ends stripped),
and reports the match as offsets into the original document text. Case is never folded and
nothing is paraphrased: a changed word is no match.

Example: document ``"a  line\\nbreak"``, excerpt ``"a line break"``: no verbatim match; the
tolerant match is characters [0, 13) of the document.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

_ASCII = str.maketrans({"“": '"', "”": '"', "„": '"', "‟": '"', "‘": "'", "’": "'", "‚": "'", "‛": "'"})
_ASCII.update(str.maketrans(dict.fromkeys("‐‑‒–—―−", "-")))


@dataclass(frozen=True)
class Match:
    """Where an excerpt was found: characters ``[start, end)`` of the document."""

    start: int
    end: int
    exact: bool  # found verbatim; False: found only after normalisation
    occurrences: int  # places it matched at that level (the first is reported)


def find_excerpt(text: str, excerpt: str, tolerant: bool = True) -> Match | None:
    """The first place ``excerpt`` occurs in ``text``: verbatim, else (``tolerant``) normalised; None if nowhere."""
    if not excerpt.strip():
        return None
    first = text.find(excerpt)
    if first >= 0:
        return Match(first, first + len(excerpt), True, _count(text, excerpt))
    if not tolerant:
        return None
    norm_text, origin = _normalise(text)
    norm_excerpt = _normalise(excerpt)[0].strip(" ")
    if not norm_excerpt:
        return None
    at = norm_text.find(norm_excerpt)
    if at < 0:
        return None
    last = at + len(norm_excerpt) - 1
    return Match(origin[at], origin[last] + 1, False, _count(norm_text, norm_excerpt))


def _count(haystack: str, needle: str) -> int:
    """Occurrences of ``needle`` in ``haystack``, overlapping ones included."""
    n, at = 0, haystack.find(needle)
    while at >= 0:
        n += 1
        at = haystack.find(needle, at + 1)
    return n


def _normalise(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, the index of the original character it came from."""
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        mapped = unicodedata.normalize("NFKC", ch).translate(_ASCII)
        for piece in mapped:
            if piece.isspace():
                if out and out[-1] == " ":
                    continue  # a whitespace run becomes one space
                piece = " "
            out.append(piece)
            origin.append(i)
    return "".join(out), origin
