"""Near-identical candidates of many lists at once: word 3-shingles of many texts in bulk, and each list's
candidates near-identical to a higher-ranked one, with the rules of ``core/shingles.py``.

``shingle_sets`` gives each text the sorted distinct shingle hashes that ``core.shingles.shingles`` defines
(words: the lower-cased text split at whitespace; a text of 1 or 2 words is one shingle of them padded
with 0), the same values bit for bit, computed for all texts at once: their words numbered in one pass
(the BM25 extension's ``number_words``) and only the distinct ones hashed.
``copied`` finds, for every list at once, the candidates near-identical to a higher-ranked one of the same
list: the same prefix filter as ``core.shingles.first_copies`` (a pair with J >= t shares one of the
|A| - ceil(t |A|) + 1 smallest shingles of each), grouped by (list, shingle) over all lists in one sort,
and the exact Jaccard of each pair it leaves.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

from rag_bench.core.shingles import _MIX, jaccard
from rag_bench.index.bm25 import compiled
from rag_bench.retrieve.steps import distinct

_MARKS = ("\x00", "\x01", "\x02", "\x03")  # the word between two texts: one no text holds


def _word_hashes(texts: Sequence[str], numbered: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The words of every text (``text.lower().split()``) as ``hash(word)`` (uint64), text after text, each text
    followed by one more word (a mark, hash 0), and where each text's mark is. With the BM25 extension built
    (``index/bm25/compiled.py``), the words of all texts are numbered in one pass in C, texts apart by a
    mark word no text holds, and only the distinct words are hashed."""
    plain = all(map(str.isascii, texts))  # then lower-cased at once, and str.split's whitespace is the extension's
    parts = texts if plain else [" ".join(t.lower().split()) for t in texts]  # Unicode spaces: single spaces
    for mark in _MARKS if compiled.LOOPS is not None and numbered and texts else ():
        data = f" {mark} ".join(parts) + f" {mark}"
        if data.count(mark) == len(texts):  # no text holds the mark
            codes, words = compiled.number_words((data.lower() if plain else data).encode("utf-8"))
            hashes = np.fromiter(map(hash, words), dtype=np.int64, count=len(words)).view(np.uint64)
            hashes[words.index(mark)] = 0
            stream = hashes[codes]
            return stream, np.flatnonzero(codes == words.index(mark))
    lists = [[*t.lower().split(), ""] for t in texts]
    ends = np.cumsum(np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))) - 1
    stream = np.fromiter(map(hash, chain.from_iterable(lists)), dtype=np.int64).view(np.uint64)
    stream[ends] = 0
    return stream, ends


def shingle_sets(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Every text's distinct shingle hashes, sorted: (values, offsets) with text i's set
    ``values[offsets[i]:offsets[i + 1]]`` (empty for a text with no word). With the BM25 extension built,
    in one C pass (``_loops.shingle_sets``: each distinct word hashed once, each set sorted there)."""
    if compiled.LOOPS is not None:
        plain = list(texts)
        if not all(map(str.isascii, plain)):  # Unicode: lowered, spaced
            plain = [t if t.isascii() else " ".join(t.lower().split()) for t in plain]
        try:
            values, offsets = compiled.LOOPS.shingle_sets(plain)
        except UnicodeEncodeError:  # a lone surrogate (no UTF-8): Python splits and hashes the words
            return _numpy_shingle_sets(texts, numbered=False)
        return np.frombuffer(values, dtype=np.uint64), np.frombuffer(offsets, dtype=np.int64)
    return _numpy_shingle_sets(texts)


def _numpy_shingle_sets(texts: Sequence[str], numbered: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``shingle_sets`` in numpy: the words numbered (in C where built and ``numbered``), shingled and sorted
    as arrays."""
    words, ends = _word_hashes(texts, numbered)  # ends[i]: the mark after text i's words
    count = np.diff(np.r_[-1, ends]) - 1
    values = words * _MIX[0]  # the shingle starting at each word; wrapping modulo 2^64, as core.shingles
    values[:-1] += words[1:] * _MIX[1]
    values[:-2] += words[2:]
    short = ends[(count == 1) | (count == 2)]  # one shingle of the words padded with 0
    values[short - 1] = words[short - 1] * _MIX[0]  # one word
    two = ends[count == 2]
    values[two - 2] = words[two - 2] * _MIX[0] + words[two - 1] * _MIX[1]
    start = np.ones(len(words), dtype=bool)  # which words start a shingle: all but each text's last two
    start[ends] = False
    start[ends[count >= 3] - 1] = False
    start[ends[count >= 3] - 2] = False
    start[two - 1] = False
    values = values[start]
    sizes = np.where(count > 0, np.maximum(count - 2, 1), 0)
    bounds = np.r_[0, np.cumsum(sizes)]
    for a, b in zip(bounds[:-1][sizes > 1].tolist(), bounds[1:][sizes > 1].tolist(), strict=True):
        values[a:b].sort()
    new = np.ones(len(values), dtype=bool)
    new[1:] = values[1:] != values[:-1]
    new[bounds[:-1][sizes > 0]] = True  # each text's first shingle
    kept = np.r_[0, np.cumsum(new)]
    return values[new], kept[bounds]


def copied(slots: np.ndarray, values: np.ndarray, offsets: np.ndarray, threshold: float) -> np.ndarray:
    """(n, width) bool: True where a list's candidate is near-identical (Jaccard >= ``threshold``) to a
    higher-ranked candidate of its list. ``slots`` (n, width): each candidate's set (-1: padding), a set
    being ``values[offsets[s]:offsets[s + 1]]``, each set a different text's."""
    n, width = slots.shape
    if compiled.LOOPS is not None and slots.size:  # the same, row by row in C (_loops.near_copies)
        flags = compiled.LOOPS.near_copies(
            np.ascontiguousarray(slots, dtype=np.int64),
            np.ascontiguousarray(values, dtype=np.uint64),
            np.ascontiguousarray(offsets, dtype=np.int64),
            width,
            float(threshold),
        )
        return np.frombuffer(flags, dtype=np.uint8).view(bool).reshape(n, width).copy()
    sizes = np.diff(offsets)
    valid = slots >= 0
    at = np.where(valid, slots, 0)
    out = np.zeros(slots.shape, dtype=bool)
    if not valid.any():
        return out
    empty = valid & (sizes[at] == 0)  # texts without a word are near-identical to each other
    out |= empty & (np.cumsum(empty, axis=1) > 1)
    prefix = np.where(valid, sizes[at] - np.ceil(threshold * sizes[at] - 1e-9).astype(np.int64) + 1, 0)
    prefix = np.minimum(prefix, sizes[at])  # (a threshold near 0: the whole set)
    prefix = np.where(valid & (sizes[at] > 0), prefix, 0).ravel()
    total = int(prefix.sum())
    if total == 0:
        return out
    owner = np.repeat(np.arange(n * width), prefix)  # one entry per (candidate, prefix shingle)
    begin = offsets[at.ravel()] - (np.cumsum(prefix) - prefix)  # entry e of candidate c: values[begin[c] + e]
    shingle = values[np.repeat(begin, prefix) + np.arange(total)]
    key = shingle + (owner // width).astype(np.uint64) * _MIX[1]  # equal for equal (list, shingle), rarely else
    order = np.argsort(key)  # grouped by key
    ordered = key[order]
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return out
    shared = np.zeros(total, dtype=bool)  # the entries whose key another entry has
    shared[1:] |= same
    shared[:-1] |= same
    hit = np.sort(order[shared])
    hit = hit[np.argsort(key[hit], kind="stable")]  # grouped by key, entries (so candidates) in list order
    group = np.r_[0, np.cumsum(key[hit][1:] != key[hit][:-1])]
    first = np.searchsorted(group, group)  # each entry's group's first entry
    depth = np.arange(len(hit)) - first  # earlier entries of its group
    later = np.repeat(hit, depth)
    earlier = hit[np.repeat(first, depth) + np.arange(int(depth.sum())) - np.repeat(np.cumsum(depth) - depth, depth)]
    a, b = owner[earlier], owner[later]
    one_list = (a // width) == (b // width)  # a key shared by two lists' shingles is no pair
    pairs = distinct(a[one_list] * (n * width) + b[one_list])
    flat, seen = out.ravel(), {}
    for pair in pairs.tolist():  # in list order of the lower candidate, then of the higher
        a, b = divmod(pair, n * width)
        sa, sb = int(at.flat[a]), int(at.flat[b])
        if not flat[b] and (sa, sb) not in seen:  # one text: J = 1 (it has a shingle, as it has a prefix)
            seen[sa, sb] = sa == sb or jaccard(_set(values, offsets, sa), _set(values, offsets, sb)) >= threshold
        flat[b] = flat[b] or seen[sa, sb]
    return out


def _set(values: np.ndarray, offsets: np.ndarray, s: int) -> np.ndarray:
    return values[offsets[s] : offsets[s + 1]]
