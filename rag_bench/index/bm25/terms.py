"""A corpus as one stream of term ids: every distinct whitespace-separated word is analyzed once.

Both analyzers (``analyzers.py``) treat whitespace as a hard break: no term spans it, and
normalizing (apostrophes, lower case; Python's final-sigma rule stops at whitespace) does not
look across it, so ``analyze(text)`` equals the concatenation of ``analyze(word)`` over
``text.split()``. The corpus is therefore joined with a marker word between texts, normalized
once, and its words are numbered in order of first appearance without making a Python string
per word (``word_codes``; a long corpus in pieces, in threads); only the distinct words go
through the analyzer's split (``Analyzer.split_words``, all in one call).
Worked example: texts ["ERR_4021 at v1.2", "err_4021."] -> words ["err_4021", "at", "v1.2",
<marker>, "err_4021."] -> terms ["err_4021", "at", "v1.2", "err_4021"], doc lengths [3, 1],
vocab ["err_4021", "at", "v1.2"] (ids in order of first appearance, as ``BM25Index.build``).
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import chain, count

import numpy as np
import pandas as pd  # factorize (a hash table in C); the pipeline loads pandas anyway

from rag_bench.index.bm25 import compiled

MARKER = "\x00"  # the word between two texts; a text holding it is analyzed text by text instead
# What str.split() splits at: the ASCII bytes below, and these code points mapped to " " first.
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20]] = True
_OTHER_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")  # re.sub: ~15x str.translate
PART_BYTES = 8 << 20  # numbered in threads from two pieces of this many bytes up
_CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
THREADS = min(4, _CPUS)  # pieces of a long text numbered at once
_PAD = " " * 8  # a text ending in 8 spaces can be read 8 bytes at a time up to its last word's end
_PAD_BYTES = _PAD.encode()
# Low ``n`` bytes of a little-endian uint64 (n = 0..8).
_LOW_BYTES = np.array([0, *((1 << (8 * n)) - 1 for n in range(1, 8)), 2**64 - 1], dtype=np.uint64)


@dataclass(frozen=True)
class Terms:
    """Analyzed corpus: term ids of every token in corpus order, tokens per text, and the vocabulary."""

    vocab: dict[str, int]  # term -> id, ids in order of first appearance
    term_of: np.ndarray  # (n_tokens,) int64 term id of every token, text by text
    doc_len: np.ndarray  # (n_texts,) int64 tokens per text


def corpus_terms(texts: Sequence[str], analyze: Callable[[str], list[str]]) -> Terms:
    """``texts`` analyzed by ``analyze`` (an ``Analyzer``, or any whitespace-respecting function), as a term stream.

    An ``Analyzer`` normalizes the joined corpus in one call and splits each distinct
    normalized word; a plain function is called on each distinct raw word. An analyzer with a
    ``corpus`` path of its own (CJK bigrams, ``bigram_corpus.py``) takes the whole corpus.
    """
    whole = getattr(analyze, "corpus", None)
    if whole is not None:
        return whole(texts, analyze.normalize)
    if any(MARKER in text for text in texts):
        return terms_of_tokens([analyze(text) for text in texts])
    joined = f" {MARKER} ".join(texts) + _PAD  # the padding word_codes needs, made in this join, not copied later
    normalize = getattr(analyze, "normalize", None)
    split_words = getattr(analyze, "split_words", None) or (lambda words: [analyze(word) for word in words])
    return joined_terms(normalize(joined) if normalize else joined, len(texts), split_words)


def joined_terms(joined: str, n_texts: int, split_words: Callable[[Sequence[str]], list[Sequence[str]]]) -> Terms:
    """The term stream of ``n_texts`` texts, normalized and joined with `` MARKER `` between two (``corpus_terms``).

    ``split_words``: the terms of each of a list of distinct words (``Analyzer.split_words``).
    """
    word_of, distinct = word_codes(joined)  # (n_words,), (n_distinct,)
    analyzed = split_words(distinct)
    marker = distinct.index(MARKER) if n_texts > 1 else -1
    if marker >= 0:
        analyzed[marker] = []
    n_terms = np.fromiter(map(len, analyzed), np.int64, len(analyzed))  # (n_distinct,) terms of each word
    # Terms numbered in the distinct words' order, which is their order of first appearance in the corpus.
    flat, vocab = pd.factorize(np.array(list(chain.from_iterable(analyzed)), dtype=object))
    flat = flat.astype(np.int64, copy=False)  # (sum n_terms,) term ids of each distinct word, word by word
    first_term = np.cumsum(n_terms) - n_terms  # (n_distinct,) where a word's terms begin in ``flat``
    if n_terms.max(initial=0) <= 1:  # no word gives more than one term: one gather
        word_term = np.full(len(distinct), -1, dtype=np.int64)  # (n_distinct,) each word's term, -1 for none
        one = n_terms == 1
        word_term[one] = flat[first_term[one]]
        each = word_term[word_of]  # (n_words,)
        none = np.flatnonzero(each < 0)  # (n_none,) words giving no term, the markers among them
        term_of = np.delete(each, none) if len(none) else each
        at_marker = none[word_of[none] == marker]
        bounds = at_marker - np.searchsorted(none, at_marker)  # tokens before each marker: words minus termless ones
    else:
        per_word = n_terms[word_of]  # (n_words,) terms each word occurrence contributes
        ends = np.cumsum(per_word)  # (n_words,) tokens up to and including each word occurrence
        term_of = flat[np.repeat(first_term[word_of] - ends + per_word, per_word) + np.arange(int(ends[-1]))]
        bounds = ends[np.flatnonzero(word_of == marker)]  # tokens before each marker
    doc_len = np.diff(np.concatenate([[0], bounds, [len(term_of)]])) if n_texts else np.zeros(0, np.int64)
    return Terms(dict(zip(vocab.tolist(), range(len(vocab)), strict=True)), term_of, doc_len.astype(np.int64))


def word_codes(text: str, parts: int | None = None) -> tuple[np.ndarray, list[str]]:
    """The words of ``text.split()`` numbered by first appearance: (n_words,) int64 codes, and the distinct words.

    Works on the UTF-8 bytes: in one pass of C where the extension is built (``compiled``),
    else with numpy (``_word_ranges``, ``_number``), as follows. A long text is cut at spaces into
    ``parts`` pieces (default: ``THREADS``, one per CPU up to 4, each at least ``PART_BYTES``),
    numbered in threads (numpy and pandas release the GIL). Each piece's distinct words, piece
    after piece, are then numbered once more, which gives their codes over the whole text:
    the result is the same for any number of parts.
    """
    if not text.isascii():
        text = _OTHER_SPACE.sub(" ", text)
    raw = text.encode("utf-8")
    if compiled.LOOPS is not None:
        return compiled.number_words(raw)
    padded = raw if raw.endswith(_PAD_BYTES) else raw + _PAD_BYTES  # so that every 8-byte read fits
    data = np.frombuffer(padded, dtype=np.uint8)
    eight = np.ndarray((len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))  # eight[i]: bytes i..i+7
    if parts is None:
        parts = max(1, min(THREADS, len(raw) // PART_BYTES))
    cuts = [0]
    for k in range(1, parts):  # each cut at a space, so no word straddles two pieces
        cut = raw.find(b" ", max(cuts[-1], len(raw) * k // parts))
        if cut > cuts[-1]:
            cuts.append(cut)
    cuts.append(len(raw))

    def number(lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        starts, ends = _word_ranges(data, lo, hi)
        codes, first = _number(eight, starts, ends)
        return codes, starts[first], ends[first]  # each distinct word at its first occurrence

    if len(cuts) == 2:
        codes, starts, ends = number(0, len(raw))
        return codes, _decode_words(data, starts, ends)
    with ThreadPoolExecutor(len(cuts) - 1) as pool:
        numbered = list(pool.map(number, cuts[:-1], cuts[1:]))
    starts, ends = (np.concatenate([piece[i] for piece in numbered]) for i in (1, 2))  # (n_piece_distinct,) each
    overall, first = _number(eight, starts, ends)  # code over the whole text of each piece's distinct words
    offsets = np.cumsum([0, *(len(piece[1]) for piece in numbered)])
    codes = np.empty(sum(len(piece[0]) for piece in numbered), dtype=np.int64)  # (n_words,)
    at = 0
    for offset, (piece_codes, _, _) in zip(offsets, numbered, strict=False):
        piece_codes += offset  # in place: the piece's codes as indices into ``overall``
        np.take(overall, piece_codes, out=codes[at : at + len(piece_codes)])
        at += len(piece_codes)
    return codes, _decode_words(data, starts[first], ends[first])


def _word_ranges(data: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """Byte ranges [starts, ends) of the words (runs of non-space bytes) of ``data[lo:hi]``: (n_words,) each."""
    piece = data[lo:hi]
    space = np.ones(hi - lo + 2, dtype=bool)  # (hi - lo + 2,) a space before and after the piece
    np.less_equal(piece, 0x20, out=space[1:-1])  # every space is <= 0x20; a comparison is ~10x a table lookup
    control = np.flatnonzero(piece < 0x20)  # the markers, tabs and line breaks among them: looked up
    space[control + 1] = _ASCII_SPACE[piece[control]]
    bounds = np.flatnonzero(space[1:] != space[:-1])  # where a word starts or ends, alternately (piece offsets)
    return bounds[0::2] + lo, bounds[1::2] + lo


def _number(eight: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The words at byte ranges [starts, ends) numbered by content in order of first appearance.

    Returns (codes, first): (n_words,) int64 codes, and (n_distinct,) the index of each code's
    first occurrence. ``eight[i]`` is the 8 bytes from byte i, little-endian. Words of up to 8
    bytes are their own uint64 key (only the marker holds a NUL byte, so no two words share a
    key). Longer words take one more 8-byte step each, numbering (code so far, next bytes)
    pairs; a word that ends before a step keeps its code, and longer ones move to fresh codes.
    Example: "ab cd ab" -> bytes 61 62 20 63 64 20 61 62 -> keys 0x6261, 0x6463, 0x6261 -> codes [0, 1, 0].
    """
    length = ends - starts
    codes = pd.factorize(eight[starts] & _LOW_BYTES[np.minimum(length, 8)])[0].astype(np.int64)
    longer, step = np.flatnonzero(length > 8), 1
    while len(longer):
        rest = length[longer] - 8 * step  # >= 1: bytes left after ``step`` steps
        chunk = pd.factorize(eight[starts[longer] + 8 * step] & _LOW_BYTES[np.minimum(rest, 8)])[0]
        pairs = pd.factorize((codes[longer] << 32) | chunk)[0]  # codes < n_words < 2**31, chunk too
        codes[longer] = pairs + codes.max() + 1
        longer, step = longer[rest > 8], step + 1
    first = np.full(int(codes.max()) + 1 if len(codes) else 0, len(codes))  # (n_codes,) first position of each code
    np.minimum.at(first, codes, np.arange(len(codes)))
    first = np.sort(first[first < len(codes)])  # (n_distinct,) each distinct word's first position, in order
    rank = np.empty(len(first) and int(codes.max()) + 1, dtype=np.int64)
    rank[codes[first]] = np.arange(len(first))  # code -> its word's rank by first appearance
    return rank[codes], first


def _decode_words(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    """The words at byte ranges [starts, ends) of ``data`` (none holds a space), gathered and decoded in one call."""
    if not len(starts):
        return []
    length = ends - starts  # (n,)
    before = np.cumsum(length) - length  # (n,) bytes of the words before each word
    order = np.arange(int(length.sum()))  # every word byte, word by word
    gathered = np.full(len(order) + len(starts) - 1, 0x20, dtype=np.uint8)  # the words, one space between two
    gathered[order + np.repeat(np.arange(len(starts)), length)] = data[order + np.repeat(starts - before, length)]
    return gathered.tobytes().decode("utf-8").split(" ")


def terms_of_tokens(docs: Sequence[Sequence[str]]) -> Terms:
    """Already tokenized ``docs`` as a term stream (ids in order of first appearance)."""
    doc_len = np.fromiter(map(len, docs), np.int64, len(docs))  # (n_docs,)
    ids: defaultdict[str, int] = defaultdict(count().__next__)
    term_of = np.fromiter(map(ids.__getitem__, chain.from_iterable(docs)), np.int64, int(doc_len.sum()))
    return Terms(dict(ids), term_of, doc_len)
