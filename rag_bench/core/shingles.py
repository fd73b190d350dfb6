"""Near-identical texts: word 3-shingles and their exact Jaccard similarity.

A text's words are its whitespace-separated words, lower-cased; its shingles are its runs of 3
consecutive words (a text of 1 or 2 words is one shingle of them). J(A, B) = |A & B| / |A | B| over the
two sets of distinct shingles; two texts are near-identical when J >= ``NEAR_IDENTICAL`` (0.9): repeated
boilerplate, a document duplicated with a word or two changed. Broder, "On the resemblance and
containment of documents", 1997 (shingles, resemblance).
Example: "a b c d" and "a b c e" share 1 of 3 distinct shingles (abc; bcd, bce differ): J = 1 / 3.

Shingles are kept as 64-bit hashes of their words (Python's string hash, within one process), so two
different shingles could in principle share a hash; the chance is about 2^-64 per pair.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

NEAR_IDENTICAL = 0.9  # Jaccard of word 3-shingles at or above which two texts are near-identical
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))  # odd multipliers: word position matters
_FIRST = np.array([True])


def shingles(text: str) -> np.ndarray:
    """``text``'s distinct shingle hashes, sorted (uint64); empty for a text with no word."""
    words = np.fromiter(map(hash, text.lower().split()), dtype=np.int64).view(np.uint64)
    if len(words) < 3:  # one shingle of them all, padded with 0 (the hash of no word but "")
        if len(words) == 0:
            return words
        words = np.concatenate([words, np.zeros(3 - len(words), np.uint64)])
    found = words[:-2] * _MIX[0]  # array arithmetic wraps modulo 2^64 without a warning
    found += words[1:-1] * _MIX[1]
    found += words[2:]
    found.sort()
    return found[np.concatenate((_FIRST, found[1:] != found[:-1]))]  # distinct; cheaper than np.unique here


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard similarity of two shingle sets (sorted, distinct); 0 when both are empty."""
    shared = len(np.intersect1d(a, b, assume_unique=True))
    union = len(a) + len(b) - shared
    return shared / union if union else 0.0


def first_copies(sets: Sequence[np.ndarray], threshold: float = NEAR_IDENTICAL) -> np.ndarray:
    """(m,) int: for each text in list order, the position of the first earlier text it is near-identical to
    (Jaccard >= ``threshold``), else -1; ``sets`` as ``shingles`` returns them. Texts without a word are
    near-identical to each other.

    Only pairs whose prefixes share a shingle are compared (prefix filtering: a pair with J >= t shares one
    of the |A| - ceil(t |A|) + 1 smallest shingles of each; Bayardo, Ma and Srikant, "Scaling up all pairs
    similarity search", WWW 2007), so a list of unrelated texts costs one sort of their prefixes.
    Example: [x, y, x'] with x' near x gives [-1, -1, 0].
    """
    m = len(sets)
    out = np.full(m, -1, dtype=np.int64)
    empty = [i for i, s in enumerate(sets) if len(s) == 0]
    out[empty[1:]] = empty[0] if empty else -1
    prefixes = [s[: len(s) - math.ceil(threshold * len(s) - 1e-9) + 1] for s in sets]
    lengths = [len(p) for p in prefixes]
    if sum(lengths) == 0:
        return out
    values = np.concatenate(prefixes)
    owners = np.repeat(np.arange(m), lengths)
    order = np.argsort(values, kind="stable")
    values, owners = values[order], owners[order]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    counts = np.diff(np.r_[starts, len(values)])
    pairs = set()
    for start, count in zip(starts[counts > 1].tolist(), counts[counts > 1].tolist(), strict=True):
        members = sorted(set(owners[start : start + count].tolist()))
        pairs.update((a, b) for k, b in enumerate(members) for a in members[:k])
    for a, b in sorted(pairs, key=lambda p: (p[1], p[0])):  # each later text's earliest near-identical text
        if out[b] < 0 and jaccard(sets[a], sets[b]) >= threshold:
            out[b] = a
    return out
