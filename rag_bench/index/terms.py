"""A corpus as one stream of term ids: every distinct whitespace-separated word is analyzed once.

Both analyzers (``analyzers.py``) treat whitespace as a hard break: no term spans it, and
normalizing (apostrophes, lower case; Python's final-sigma rule stops at whitespace) does not
look across it, so ``analyze(text)`` equals the concatenation of ``analyze(word)`` over
``text.split()``. The corpus is therefore joined with a marker word between texts, normalized
once, and its words are numbered in order of first appearance without making a Python string
per word (``word_codes``); only the distinct words go through the analyzer's split.
Worked example: texts ["ERR_4021 at v1.2", "err_4021."] -> words ["err_4021", "at", "v1.2",
<marker>, "err_4021."] -> terms ["err_4021", "at", "v1.2", "err_4021"], doc lengths [3, 1],
vocab ["err_4021", "at", "v1.2"] (ids in order of first appearance, as ``BM25Index.build``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain, count

import numpy as np
import pandas as pd  # factorize (a hash table in C); the pipeline loads pandas anyway

MARKER = "\x00"  # the word between two texts; a text holding it is analyzed text by text instead
# What str.split() splits at: the ASCII bytes below, and these code points mapped to " " first.
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20]] = True
_OTHER_SPACE = dict.fromkeys([0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000], " ")
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
    normalized word; a plain function is called on each distinct raw word.
    """
    if any(MARKER in text for text in texts):
        return terms_of_tokens([analyze(text) for text in texts])
    joined = f" {MARKER} ".join(texts)
    normalize, split = getattr(analyze, "normalize", None), getattr(analyze, "split", analyze)
    word_of, distinct = word_codes(normalize(joined) if normalize else joined)  # (n_words,), (n_distinct,)
    analyzed = [[] if word == MARKER else split(word) for word in distinct]
    n_terms = np.fromiter(map(len, analyzed), np.int64, len(analyzed))  # (n_distinct,) terms of each word
    # Terms numbered in the distinct words' order, which is their order of first appearance in the corpus.
    flat, vocab = pd.factorize(np.array(list(chain.from_iterable(analyzed)), dtype=object))
    flat = flat.astype(np.int64, copy=False)  # (sum n_terms,) term ids of each distinct word, word by word
    per_word = n_terms[word_of]  # (n_words,) terms each word occurrence contributes
    ends = np.cumsum(per_word)  # (n_words,) tokens up to and including each word occurrence
    if np.array_equal(n_terms, n_terms.astype(bool)):  # no word gives more than one term: one gather
        term_of = flat[np.cumsum(n_terms)[word_of[per_word == 1]] - 1]
    else:
        starts = np.cumsum(n_terms) - n_terms  # (n_distinct,) where a word's terms begin in ``flat``
        term_of = flat[np.repeat(starts[word_of] - ends + per_word, per_word) + np.arange(int(ends[-1]))]
    marker = distinct.index(MARKER) if len(texts) > 1 else -1
    bounds = ends[np.flatnonzero(word_of == marker)]  # tokens before each marker
    doc_len = np.diff(np.concatenate([[0], bounds, [len(term_of)]])) if texts else np.zeros(0, np.int64)
    return Terms(dict(zip(vocab.tolist(), range(len(vocab)), strict=True)), term_of, doc_len.astype(np.int64))


def word_codes(text: str) -> tuple[np.ndarray, list[str]]:
    """The words of ``text.split()`` numbered by first appearance: (n_words,) int64 codes, and the distinct words.

    Works on the UTF-8 bytes: a word is a run of non-space bytes, and words of up to 8 bytes
    are their own uint64 key (bytes little-endian; only the marker holds a NUL byte, so no two words share a key).
    Longer words take one more 8-byte step each, numbering (code so far, next 8 bytes) pairs;
    a word that ends at a step keeps its code, and longer ones move to fresh codes. Example:
    "ab cd ab" -> bytes 61 62 20 63 64 20 61 62 -> keys 0x6261, 0x6463, 0x6261 -> codes [0, 1, 0].
    """
    if not text.isascii():
        text = text.translate(_OTHER_SPACE)
    raw = text.encode("utf-8")
    data = np.frombuffer(raw + bytes(8), dtype=np.uint8)  # padded so that every 8-byte read fits
    edges = np.diff((~_ASCII_SPACE[data[: len(raw)]]).view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)  # (n_words,) byte ranges
    length = ends - starts
    eight = np.ndarray((len(raw) + 1,), dtype="<u8", buffer=data, strides=(1,))  # eight[i]: bytes i..i+7
    codes = pd.factorize(eight[starts] & _LOW_BYTES[np.minimum(length, 8)])[0].astype(np.int64)
    longer, step = np.flatnonzero(length >= 8), 1
    while len(longer):
        rest = length[longer] - 8 * step
        chunk = pd.factorize(eight[starts[longer] + 8 * step] & _LOW_BYTES[np.clip(rest, 0, 8)])[0]
        pairs = pd.factorize((codes[longer] << 32) | chunk)[0]  # codes < n_words < 2**31, chunk too
        codes[longer] = pairs + codes.max() + 1
        longer, step = longer[rest >= 8], step + 1
    first = np.full(int(codes.max()) + 1 if len(codes) else 0, len(codes))  # (n_codes,) first position of each code
    np.minimum.at(first, codes, np.arange(len(codes)))
    first = np.sort(first[first < len(codes)])  # (n_distinct,) each distinct word's first position, in order
    rank = np.empty(len(first) and int(codes.max()) + 1, dtype=np.int64)
    rank[codes[first]] = np.arange(len(first))  # code -> its word's rank by first appearance
    words = [raw[starts[i] : ends[i]].decode("utf-8") for i in first.tolist()]
    return rank[codes], words


def terms_of_tokens(docs: Sequence[Sequence[str]]) -> Terms:
    """Already tokenized ``docs`` as a term stream (ids in order of first appearance)."""
    doc_len = np.fromiter(map(len, docs), np.int64, len(docs))  # (n_docs,)
    ids: defaultdict[str, int] = defaultdict(count().__next__)
    term_of = np.fromiter(map(ids.__getitem__, chain.from_iterable(docs)), np.int64, int(doc_len.sum()))
    return Terms(dict(ids), term_of, doc_len)
