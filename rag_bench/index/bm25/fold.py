"""Unicode normalisation and accent folding: ``retrieval.normalization`` and ``retrieval.fold_accents``.

Normalisation (UAX #15) runs on the whole text before lower-casing: NFC composes "e" + U+0301 into "é",
NFKC also maps compatibility forms (full-width "ＡＢＣ１" -> "ABC1", "ﬁ" -> "fi", half-width katakana to
full-width). Neither joins across whitespace, so analysis stays word by word (``terms.py``).

Folding runs on each term after stemming: the term is decomposed (NFD), the combining marks of
U+0300-U+036F (Latin, Greek and Cyrillic accents) are dropped, and it is recomposed, so "résumé" ->
"resume", "Müller" -> "muller", "ά" -> "α"; letters that do not decompose are mapped as Lucene's
ASCIIFoldingFilter maps them (ß -> ss, æ -> ae, ø -> o, ł -> l, đ -> d, œ -> oe, þ -> th, ð -> d).
Japanese voicing marks (U+3099, U+309A) and Hangul are outside that range and stay as they are.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from rag_bench.core.errors import ConfigError

FORMS = ("none", "nfc", "nfkc")  # retrieval.normalization
_MARKS = re.compile("[\u0300-\u036f]+")
_LETTERS = str.maketrans({"ß": "ss", "æ": "ae", "ø": "o", "ł": "l", "đ": "d", "œ": "oe", "þ": "th", "ð": "d"})


def normalizer(form: str) -> Callable[[str], str] | None:
    """The function that puts a text in Unicode form ``form`` (None for "none"); ConfigError for others."""
    if form not in FORMS:
        raise ConfigError(f"retrieval.normalization ({form!r}) must be one of: {', '.join(FORMS)}")
    if form == "none":
        return None
    upper = form.upper()

    def normalize(text: str) -> str:
        return text if text.isascii() else unicodedata.normalize(upper, text)

    return normalize


def fold(term: str) -> str:
    """``term`` without Latin, Greek and Cyrillic accents: "crème" -> "creme", "straße" -> "strasse"."""
    if term.isascii():
        return term
    bare = _MARKS.sub("", unicodedata.normalize("NFD", term))
    return unicodedata.normalize("NFC", bare).translate(_LETTERS)
