"""A text's language when the dataset does not give one (``retrieval.analyzer=auto``): script, then stop words.

Deterministic and dependency-free, and only as good as that: the letters of the first 2,000
characters are counted by script; kana make it Japanese, Hangul Korean, Han alone Chinese, and
Greek, Armenian, Hebrew (Yiddish), Tamil and Cyrillic (Russian) name their language. Latin,
Arabic and Devanagari text goes to the language whose stop words (``stopwords.py``) it holds most
of ("Wie hoch ist die Gebühr?" -> 3 German words -> "de"); a tie goes to the language listed
first, English first. None when nothing decides (a bare identifier, "ERR_4021").

Cheap, as it runs on every document of a corpus under ``auto``: an ASCII sample's letters are all
Latin; any other sample's code points are counted by script with one table lookup in numpy
(``_table``: code point -> script of a letter); the stop words are counted once per distinct word,
and only the voters holding a word hear of it (``_HOLDERS``). About 20x faster than a loop over
the characters and a pass over the words per voter, with the same answer (tests/index/test_detect.py).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import numpy as np

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
_SCRIPTS = ("latin", *sorted({script for _, _, script in _RANGES}))
_BY_SCRIPT = {"greek": "el", "cyrillic": "ru", "armenian": "hy", "hebrew": "yi", "tamil": "ta", "hangul": "ko"}
_VOTERS = {  # the languages whose stop words decide within a script, in tie order
    "latin": ["english", *sorted(set(STOPWORDS) - {"english", "greek", "russian", "arabic", "persian", "hindi"})],
    "arabic": ["arabic", "persian"],
    "devanagari": ["hindi"],
}
# script -> stop word -> the places in _VOTERS[script] of the voters whose list holds it
_HOLDERS: dict[str, dict[str, list[int]]] = {
    script: {
        w: [i for i, name in enumerate(names) if w in STOPWORDS[name]] for w in set().union(*map(STOPWORDS.get, names))
    }
    for script, names in _VOTERS.items()
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


@cache
def _table() -> np.ndarray:
    """(0x10001,) uint8: for each BMP code point, 1 + the place in ``_SCRIPTS`` of its script if it is a letter
    ``script_of`` knows, else 0; the last entry (0) stands for every code point beyond the BMP (no script)."""
    points = np.arange(0x10001)
    table = np.zeros(0x10001, dtype=np.uint8)
    table[(points < 0x80) | ((points >= 0xC0) & (points < 0x250))] = 1 + _SCRIPTS.index("latin")
    for first, last, script in _RANGES:  # none overlaps another, nor the Latin code points
        table[first : last + 1] = 1 + _SCRIPTS.index(script)
    table[:-1][np.fromiter((not chr(p).isalpha() for p in range(0x10000)), bool, 0x10000)] = 0  # letters only
    return table


def detect(text: str) -> str | None:
    """ISO 639-1 code of ``text``'s language, or None when its letters and stop words do not tell."""
    sample = text[:SAMPLE]
    if sample.isascii():  # every ASCII letter is Latin, and the words hold them all
        words = _WORD.findall(sample.lower())
        return _vote("latin", words) if words else None
    points = np.frombuffer(sample.encode("utf-32-le"), dtype=np.uint32)  # (n_chars,)
    found = np.bincount(_table()[np.minimum(points, 0x10000)], minlength=len(_SCRIPTS) + 1)[1:]  # (n_scripts,)
    counts = {_SCRIPTS[i]: int(found[i]) for i in np.flatnonzero(found)}
    if not counts:
        return None
    if counts.get("kana", 0) and counts.get("kana", 0) + counts.get("han", 0) >= counts.get("hangul", 0):
        return "ja"
    script = max(counts, key=lambda s: (counts[s], s))
    if script == "han":
        return "zh"
    if script in _BY_SCRIPT:
        return _BY_SCRIPT[script]
    return _vote(script, _WORD.findall(sample.lower()))


def _vote(script: str, words: list[str]) -> str | None:
    """The voter of ``script`` whose stop words ``words`` hold most of (the first listed on a tie), None if none."""
    seen = Counter(words)
    holders = _HOLDERS[script]
    hits = [0] * len(_VOTERS[script])
    for word in holders.keys() & seen.keys():
        for i in holders[word]:
            hits[i] += seen[word]
    best = max(range(len(hits)), key=lambda i: (hits[i], -i))
    return CODES[_VOTERS[script][best]] if hits[best] else None
