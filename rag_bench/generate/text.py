"""Answer normalisation and token F1, as in the SQuAD v1.1 evaluation script.

normalise: lower-case, drop punctuation and symbols (Unicode categories P* and S*),
drop the articles a/an/the, collapse whitespace.
token F1: with common = multiset intersection of the normalised tokens,
P = |common| / |answer|, R = |common| / |reference|, F1 = 2PR / (P + R).
Reference: Rajpurkar et al., "SQuAD: 100,000+ Questions for Machine Comprehension of Text", 2016.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_WORD = re.compile(r"\w+")


def normalise(text: str) -> str:
    """``"The £12.7 million!"`` -> ``"127 million"``."""
    kept = "".join(c for c in text.lower() if unicodedata.category(c)[0] not in "PS")
    return " ".join(_ARTICLES.sub(" ", kept).split())


def token_f1(answer: str, reference: str) -> float:
    """SQuAD token F1 of two texts (1.0 when both normalise to nothing)."""
    got, want = normalise(answer).split(), normalise(reference).split()
    if not got or not want:
        return float(got == want)
    common = sum((Counter(got) & Counter(want)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(got), common / len(want)
    return 2 * precision * recall / (precision + recall)


def words(text: str) -> list[str]:
    """Lower-cased word tokens (``\\w+``: ``ERR_4021`` stays one token)."""
    return _WORD.findall(text.lower())
