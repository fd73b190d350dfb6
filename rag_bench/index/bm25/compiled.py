"""The C loops of BM25 (extension ``_loops``, from ``_loops*.c``), or the numpy code where they were not built.

This module is the one place that decides: ``LOOPS`` is the extension module when it was
compiled at install time (setup.py builds it where a C compiler is present; an install without
one still succeeds), else None, and then ``terms.word_codes``, ``BM25Index.from_terms`` and
``BM25Index.search`` run their numpy code. Both paths return the same arrays bit for bit
(tests/index/test_compiled.py, tests/index/test_bm25.py). On 50,000 documents (6 M words,
166,000 distinct), first call in a fresh process on a shared two-core machine: words numbered in
0.2-0.45 s instead of 0.5-1.2 s, postings in 0.1-0.23 s instead of 0.28-1.1 s (warm, numpy's
sort-based postings are as fast: 0.09-0.13 s); 1,000 queries of 6 terms, top 100, searched in
0.057-0.074 s instead of 0.16-0.28 s.

Why C and not a JIT compiler such as numba: the CLI's first run in a fresh environment counts,
and numba would spend ~10 s compiling these loops there, while a C extension is compiled once,
by the install. Tests and benchmarks set ``LOOPS`` to None to run the numpy path.
"""

from __future__ import annotations

from itertools import chain
from types import ModuleType

import numpy as np

try:
    from rag_bench.index.bm25 import _loops
except ImportError:  # not built: no C compiler at install time, or a copy of the sources without it
    _loops = None

LOOPS: ModuleType | None = _loops


def built() -> bool:
    """Whether the extension was built (whatever ``LOOPS`` is set to)."""
    return _loops is not None


def number_words(raw: bytes) -> tuple[np.ndarray, list[str]]:
    """``terms.word_codes`` of UTF-8 ``raw`` in C: (n_words,) int64 codes by first appearance, and the distinct words.

    Words are runs of bytes that are not ASCII whitespace (the caller maps the other Unicode
    spaces to " " first). Example: b" ab cd\\tab" -> codes [0, 1, 0], words ["ab", "cd"].
    """
    codes, joined = _module().number_words(raw)  # bytearray (n_words int64), bytes: the distinct words " "-joined
    return np.frombuffer(codes, dtype=np.int64), joined.decode("utf-8").split(" ") if joined else []


def postings(term_of: np.ndarray, doc_len: np.ndarray, n_terms: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``bm25._postings`` in C: (term, doc, tf) of every distinct (term, doc) pair, (n_postings,) int64 each.

    ``term_of``: (n_tokens,) term ids, text by text; ``doc_len``: (n_docs,) tokens per text.
    Sorted by term, then document (a counting sort). Example: term_of [1, 0, 1, 1], doc_len
    [2, 2] -> term [0, 1, 1], doc [0, 0, 1], tf [1, 1, 2].
    """
    term_of = np.ascontiguousarray(term_of, dtype=np.int64)
    doc_len = np.ascontiguousarray(doc_len, dtype=np.int64)
    term, doc, tf = _module().postings(term_of, doc_len, n_terms)  # bytearrays of n_postings int64 each
    return np.frombuffer(term, dtype=np.int64), np.frombuffer(doc, dtype=np.int64), np.frombuffer(tf, dtype=np.int64)


def search(
    indptr: np.ndarray, doc_ids: np.ndarray, weights: np.ndarray, per_query: list[list[int]], n_docs: int, depth: int
) -> tuple[np.ndarray, np.ndarray]:
    """``BM25Index.search`` in C: each query's top ``depth`` (indices, scores), (n_queries, depth) int64 and float64.

    ``per_query[q]``: query q's known term ids in query order. Rows are score descending, then
    document index ascending, padded with -1 / -inf; scores are the float64 sums of the query's
    posting weights added in query order, as ``bm25_numpy.search_batch``. Example: indptr
    [0, 2, 3], doc_ids [0, 2, 2], weights [1.0, 2.0, 0.5], per_query [[1, 0]], 4 documents,
    depth 3 -> indices [[2, 0, -1]], scores [[2.5, 1.0, -inf]].
    """
    term_ptr = np.zeros(len(per_query) + 1, dtype=np.int64)  # (n_queries + 1,): query q is terms[term_ptr[q]:...[q+1]]
    np.cumsum(np.fromiter(map(len, per_query), np.int64, len(per_query)), out=term_ptr[1:])
    terms = np.fromiter(chain.from_iterable(per_query), np.int64, int(term_ptr[-1]))  # (n_query_terms,)
    index = (
        np.ascontiguousarray(indptr, dtype=np.int64),
        np.ascontiguousarray(doc_ids, dtype=np.int32 if doc_ids.dtype == np.int32 else np.int64),
        np.ascontiguousarray(weights, dtype=np.float64),
    )
    indices, scores = _module().search(*index, term_ptr, terms, n_docs, depth)  # bytearrays, n_queries * depth each
    shape = (len(per_query), depth)
    return np.frombuffer(indices, dtype=np.int64).reshape(shape), np.frombuffer(scores, dtype=np.float64).reshape(shape)


def _module() -> ModuleType:
    """The built extension; RuntimeError when it was not built (callers check ``LOOPS`` first)."""
    if _loops is None:
        raise RuntimeError("rag_bench.index.bm25._loops was not built (no C compiler at install time)")
    return _loops
