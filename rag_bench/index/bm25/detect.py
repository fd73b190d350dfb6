"""A text's language when the dataset does not give one (``retrieval.analyzer=auto``): script, then stop words.

Deterministic and dependency-free, and only as good as that: the letters of the first 2,000
characters are counted by script; kana make it Japanese, Hangul Korean, Han alone Chinese, and
Greek, Armenian, Hebrew (Yiddish), Tamil and Cyrillic (Russian) name their language. Latin,
Arabic and Devanagari text goes to the language whose stop words (``stopwords.py``) it holds most
of ("Wie hoch ist die Gebühr?" -> 3 German words -> "de"); a tie goes to the language listed
first, English first. None when nothing decides (a bare identifier, "ERR_4021").
"""

from __future__ import annotations

import re

from rag_bench.data.languages import CODES
from rag_bench.index.bm25.stopwords import STOPWORDS

SAMPLE = 2000
_WORD = re.compile(r"[^\W\d_]+")
# (first, last code point, script): a letter outside every range counts as Latin when it is ASCII or
# in U+00C0-U+024F, and is ignored otherwise.
_RANGES = (
    (0x0370, 0x03FF, "greek"),
    (0x0400, 0x04FF, "cyrillic"),
    (0x0530, 0x058F, "armenian"),
    (0x0590, 0x05FF, "hebrew"),
    (0x0600, 0x06FF, "arabic"),
    (0x0900, 0x097F, "devanagari"),
    (0x0B80, 0x0BFF, "tamil"),
    (0x1100, 0x11FF, "hangul"),
    (0x3040, 0x30FF, "kana"),
    (0x3400, 0x9FFF, "han"),
    (0xAC00, 0xD7AF, "hangul"),
)
_BY_SCRIPT = {"greek": "el", "cyrillic": "ru", "armenian": "hy", "hebrew": "yi", "tamil": "ta", "hangul": "ko"}
_VOTERS = {  # the languages whose stop words decide within a script, in tie order
    "latin": ["english", *sorted(set(STOPWORDS) - {"english", "greek", "russian", "arabic", "persian", "hindi"})],
    "arabic": ["arabic", "persian"],
    "devanagari": ["hindi"],
}


def script_of(char: str) -> str | None:
    """The script of one letter, among those this module tells apart."""
    point = ord(char)
    if point < 0x250:
        return "latin" if point < 0x80 or point >= 0xC0 else None
    for first, last, script in _RANGES:
        if first <= point <= last:
            return script
    return None


def detect(text: str) -> str | None:
    """ISO 639-1 code of ``text``'s language, or None when its letters and stop words do not tell."""
    sample = text[:SAMPLE]
    counts: dict[str, int] = {}
    for char in sample:
        if char.isalpha():
            script = script_of(char)
            if script is not None:
                counts[script] = counts.get(script, 0) + 1
    if not counts:
        return None
    if counts.get("kana", 0) and counts.get("kana", 0) + counts.get("han", 0) >= counts.get("hangul", 0):
        return "ja"
    script = max(counts, key=lambda s: (counts[s], s))
    if script == "han":
        return "zh"
    if script in _BY_SCRIPT:
        return _BY_SCRIPT[script]
    words = _WORD.findall(sample.lower())
    votes = [(sum(w in STOPWORDS[name] for w in words), -i, name) for i, name in enumerate(_VOTERS[script])]
    hits, _, name = max(votes)
    return CODES[name] if hits else None
