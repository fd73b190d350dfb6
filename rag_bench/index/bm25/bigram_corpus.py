"""A whole corpus cut into CJK bigrams with numpy: the bigram analyzers' ``corpus`` path (``terms.corpus_terms``).

CJK text has few spaces, so its "words" are long and rarely repeat, and analysing each distinct
word once (``terms.py``) saves nothing; a Python loop per character would cost 10x the identifier
analyzer. Here the normalized corpus becomes code points (UTF-32), a table marks the CJK ones
(``cjk.RUN``'s ranges), and every pair of neighbouring CJK code points is one uint64 key
(first << 21 | second; a run of one character is its code point alone), numbered by pandas. The
text between the runs (CJK characters replaced by spaces) goes through the analyzer's word path.
A text's terms are the same bag as ``analyzer(text)`` gives (the order within a text differs,
which BM25 does not see): ``corpus_terms(texts, a)`` and ``terms_of_tokens([a(t) for t in texts])``
index the same BM25 scores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from rag_bench.index.bm25.cjk import RUN
from rag_bench.index.bm25.terms import MARKER, Terms, joined_terms, terms_of_tokens

_SHIFT = 21  # code points are < 2**21
_BMP = np.zeros(0x10000, dtype=bool)  # which BMP code points are CJK (cjk.RUN's ranges)
for _first, _last in [
    (0x3005, 0x3005), (0x3040, 0x309F), (0x30A1, 0x30FA), (0x30FC, 0x30FF), (0x31F0, 0x31FF),
    (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF66, 0xFF9F), (0xAC00, 0xD7AF),
    (0x1100, 0x11FF), (0x3130, 0x318F),
]:  # fmt: skip
    _BMP[_first : _last + 1] = True
_SUPPLEMENTARY = (0x20000, 0x2FA1F)


def bigram_corpus(
    texts: Sequence[str],
    normalize: Callable[[str], str],
    split_words: Callable[[Sequence[str]], list[Sequence[str]]],
    split: Callable[[str], list[str]],
) -> Terms:
    """``texts`` as a term stream: CJK runs as bigrams here, the rest through ``split_words`` word by word
    (``split``: the terms of one normalized text, for a corpus that holds the marker)."""
    if not texts:
        return Terms({}, np.zeros(0, np.int64), np.zeros(0, np.int64))
    if any(MARKER in text for text in texts):
        return terms_of_tokens([split(normalize(text)) for text in texts])
    text = normalize(f" {MARKER} ".join(texts))
    if text.isascii() or RUN.search(text) is None:  # no CJK: word by word, as any analyzer
        return joined_terms(text, len(texts), split_words)
    points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)  # (n_chars,)
    cjk = _BMP[np.minimum(points, 0xFFFF)] & (points <= 0xFFFF)
    cjk |= (points >= _SUPPLEMENTARY[0]) & (points <= _SUPPLEMENTARY[1])
    rest = points.copy()
    rest[cjk] = 0x20
    words = joined_terms(rest.tobytes().decode("utf-32-le"), len(texts), split_words)
    doc_of = np.cumsum(points == 0)  # (n_chars,) the text each character is in (markers are NUL)
    before, after = np.zeros_like(cjk), np.zeros_like(cjk)
    before[1:], after[:-1] = cjk[:-1], cjk[1:]
    at = np.flatnonzero(cjk & (after | ~before))  # (n_grams,) where each bigram, or run of one, starts
    pair = after[at]
    keys = np.where(
        pair, (points[at].astype(np.uint64) << _SHIFT) | points[np.minimum(at + 1, len(points) - 1)], points[at]
    )
    codes, distinct = pd.factorize(keys)  # numbered by first appearance
    grams = [chr(k >> _SHIFT) + chr(k & ((1 << _SHIFT) - 1)) if k >> _SHIFT else chr(k) for k in distinct.tolist()]
    return _merge(words, codes.astype(np.int64), doc_of[at], grams, len(texts))


def _merge(words: Terms, codes: np.ndarray, docs: np.ndarray, grams: list[str], n_texts: int) -> Terms:
    """The words' stream and the bigrams' (``codes`` into ``grams``, in text ``docs``) as one, text by text:
    each text's words, then its bigrams; ids renumbered by first appearance in the merged stream."""
    gram_len = np.bincount(docs, minlength=n_texts).astype(np.int64)  # (n_texts,)
    doc_len = words.doc_len + gram_len
    start = np.cumsum(doc_len) - doc_len  # (n_texts,) where each text begins in the merged stream
    word_at = np.repeat(start - (np.cumsum(words.doc_len) - words.doc_len), words.doc_len) + np.arange(
        len(words.term_of)
    )  # (n_words,) each word token's place
    gram_at = np.repeat(start + words.doc_len - (np.cumsum(gram_len) - gram_len), gram_len) + np.arange(len(codes))
    n_word_terms = len(words.vocab)
    merged = np.empty(len(word_at) + len(gram_at), dtype=np.int64)
    merged[word_at] = words.term_of
    merged[gram_at] = codes + n_word_terms
    # both streams number their terms by first appearance: each term's first place, then their order merged
    firsts = np.concatenate([word_at[_first_places(words.term_of)], gram_at[_first_places(codes)]])
    rank = np.empty(len(firsts), dtype=np.int64)
    rank[np.argsort(firsts, kind="stable")] = np.arange(len(firsts))
    names = [*words.vocab, *grams]
    order = np.empty_like(rank)
    order[rank] = np.arange(len(rank))  # new id -> old id
    vocab = {names[i]: new for new, i in enumerate(order.tolist())}
    return Terms(vocab, rank[merged], doc_len)


def _first_places(codes: np.ndarray) -> np.ndarray:
    """Where each code first appears, for codes numbered by first appearance (0, 1, 0, 2 -> [0, 1, 3])."""
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    seen = np.maximum.accumulate(codes)
    return np.flatnonzero(np.concatenate([[True], seen[1:] > seen[:-1]]))


def expand(terms: Terms, of: Callable[[str], tuple[str, ...]]) -> Terms:
    """``terms`` with each term replaced by the terms ``of`` gives it (folding, subword n-grams), in place."""
    vocab = list(terms.vocab)
    mapped = [of(term) for term in vocab]
    n_new = np.fromiter(map(len, mapped), np.int64, len(mapped))  # (n_terms,)
    flat, names = pd.factorize(np.array([t for m in mapped for t in m], dtype=object))
    start = np.cumsum(n_new) - n_new  # (n_terms,) where each term's new terms begin in ``flat``
    per_token = n_new[terms.term_of]  # (n_tokens,)
    ends = np.cumsum(per_token)
    total = int(ends[-1]) if len(ends) else 0
    stream = flat[np.repeat(start[terms.term_of] - ends + per_token, per_token) + np.arange(total)]
    doc_of = np.repeat(np.arange(len(terms.doc_len)), terms.doc_len)
    doc_len = np.bincount(doc_of, weights=per_token, minlength=len(terms.doc_len)).astype(np.int64)
    term_of, first = pd.factorize(stream)
    named = names.tolist()
    return Terms({named[i]: n for n, i in enumerate(first.tolist())}, term_of.astype(np.int64), doc_len)
