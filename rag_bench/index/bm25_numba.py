"""Compiled BM25 query kernel (numba, optional extra ``fast``): scatter-add, then a bounded heap top-k.

For each query the precomputed float64 posting weights are added into a dense accumulator
term by term in query order, so every document's sum is the same sequence of float64
additions as ``BM25Index.scores`` (and rank-bm25's ``get_scores``). The best ``depth``
documents that contain a query term are kept in a min-heap whose root is the worst kept
entry under the order (score descending, doc index ascending).

Many postings (more than n_docs / 8): the accumulator is scanned once in doc order, so a doc
that only ties the full heap's root (it has a higher index) is skipped. When every weight of
the query is positive, a doc contains a query term iff its sum is > 0, and blocks of 64 docs
whose largest sum is below a lower bound on the depth-th best score are skipped without a
look. Few postings: the docs are listed as they are first reached, and only they are
offered and reset. Postings are indexed with unsigned integers, so numba skips its
negative-index wraparound in the inner loops. Importing this module raises ImportError
when numba is not installed.

Compiling takes about 10 s; numba keeps the result in its cache (``cache=True``), so an
environment compiles once. ``kernels.py`` decides when the kernel is worth it;
``python -m rag_bench.index.bm25_numba`` compiles it ahead of time.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from numba import njit

# search_batch's argument types for indexes under 2**31 documents (doc ids viewed as uint32)
SIGNATURE = (
    "void(int64[::1], uint32[::1], float64[::1], int64[::1], int64[::1], int64, int64, int64[:, ::1], float64[:, ::1])"
)

_DENSE = 8  # scan every document when a query has more than n_docs / _DENSE postings
_BLOCK = 64  # docs per block maximum in the scan


@njit(cache=True, nogil=True)
def _worse(score_a, doc_a, score_b, doc_b):
    """True when (score_a, doc_a) ranks below (score_b, doc_b): lower score, or equal score and higher index."""
    return score_a < score_b or (score_a == score_b and doc_a > doc_b)


@njit(cache=True, nogil=True)
def _sift_down(scores, docs, size, pos):
    """Restore the heap below ``pos`` (root = worst entry) after its entry was replaced."""
    score, doc = scores[pos], docs[pos]
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        if child + 1 < size and _worse(scores[child + 1], docs[child + 1], scores[child], docs[child]):
            child += 1
        if not _worse(scores[child], docs[child], score, doc):
            break
        scores[pos], docs[pos] = scores[child], docs[child]
        pos = child
    scores[pos], docs[pos] = score, doc


@njit(cache=True, nogil=True)
def _offer(scores, docs, size, depth, score, doc):
    """Offer (score, doc) to a heap of ``size`` entries holding at most ``depth``; returns the new size."""
    if size < depth:
        pos = size
        while pos > 0:  # sift up: the new entry rises while it is worse than its parent
            parent = (pos - 1) // 2
            if not _worse(score, doc, scores[parent], docs[parent]):
                break
            scores[pos], docs[pos] = scores[parent], docs[parent]
            pos = parent
        scores[pos], docs[pos] = score, doc
        return size + 1
    if _worse(scores[0], docs[0], score, doc):
        scores[0], docs[0] = score, doc
        _sift_down(scores, docs, size, 0)
    return size


@njit(cache=True, nogil=True)
def _drain(scores, docs, size, out_scores, out_docs):
    """Pop the heap worst first into ``out_*[:size]`` from the back, leaving them best first."""
    while size > 0:
        size -= 1
        out_scores[size], out_docs[size] = scores[0], docs[0]
        scores[0], docs[0] = scores[size], docs[size]
        _sift_down(scores, docs, size, 0)


@njit(cache=True, nogil=True)
def _all_positive(indptr, weights, term, cache):
    """Whether every posting weight of ``term`` is > 0, computed once per term (cache: 0 unknown, 1 yes, 2 no)."""
    if cache[term] == 0:
        ok = True
        for p in range(np.uint64(indptr[term]), np.uint64(indptr[term + 1])):
            ok &= weights[p] > 0
        cache[term] = 1 if ok else 2
    return cache[term] == 1


@njit(cache=True, nogil=True)
def _scatter(indptr, doc_ids, weights, terms, acc, seen, mark):
    """acc[d] += weight of each posting, term by term in query order; seen[d] = 1 too when ``mark``."""
    for term in terms:
        for p in range(np.uint64(indptr[term]), np.uint64(indptr[term + 1])):
            acc[doc_ids[p]] += weights[p]
        if mark:
            for p in range(np.uint64(indptr[term]), np.uint64(indptr[term + 1])):
                seen[doc_ids[p]] = 1


@njit(cache=True, nogil=True)
def _scan_positive(acc, depth, heap_scores, heap_docs, maxima):
    """Offer the touched docs of an all-positive query in doc order, then zero acc; returns the heap size.

    With every weight > 0, a doc is touched iff acc[d] > 0, and non-negative doubles order like
    their bit patterns, so the scan compares int64 bits (vectorised block maxima, no float
    flags involved). The depth-th largest block maximum is a score that depth distinct touched
    docs reach, so blocks whose maximum is below it are skipped.
    """
    bits = acc.view(np.int64)  # (n_docs,)
    n_blocks = 0
    for start in range(0, bits.shape[0], _BLOCK):
        block = bits[start : start + _BLOCK]
        top = 0
        for i in range(block.shape[0]):
            top = max(top, block[i])
        maxima[n_blocks] = top
        n_blocks += 1
    lowest = 1  # bits of the least positive double; then the floor; then the heap root's bits
    if n_blocks >= depth:
        lowest = max(lowest, np.partition(maxima[:n_blocks], n_blocks - depth)[n_blocks - depth])
    size = 0
    for b in range(n_blocks):
        if maxima[b] < lowest:
            continue
        start = b * _BLOCK
        block = bits[start : start + _BLOCK]
        for i in range(block.shape[0]):
            if block[i] < lowest or (size == depth and block[i] == lowest):
                continue  # below the floor, or ties the root with a higher index
            size = _offer(heap_scores, heap_docs, size, depth, acc[start + i], start + i)
            if size == depth:
                lowest = bits[heap_docs[0]]
    acc[:] = 0.0
    return size


@njit(cache=True, nogil=True)
def _scan_marked(acc, seen, depth, heap_scores, heap_docs):
    """Offer every doc with seen[d] set, in doc order, then zero acc and seen; returns the heap size."""
    size = 0
    for d in range(acc.shape[0]):
        if seen[d] and (size < depth or acc[d] > heap_scores[0]):  # a tie with the root has a higher index
            size = _offer(heap_scores, heap_docs, size, depth, acc[d], d)
    acc[:] = 0.0
    seen[:] = 0
    return size


@njit(cache=True, nogil=True)
def _sparse(indptr, doc_ids, weights, terms, depth, acc, seen, touched, heap_scores, heap_docs):
    """Scatter while listing each doc when first reached, then offer and reset only those; returns the heap size."""
    n_touched = 0
    for term in terms:
        for p in range(np.uint64(indptr[term]), np.uint64(indptr[term + 1])):
            d = doc_ids[p]
            touched[n_touched] = d
            n_touched += 1 - seen[d]
            seen[d] = 1
            acc[d] += weights[p]
    size = 0
    for i in range(n_touched):
        d = touched[i]
        size = _offer(heap_scores, heap_docs, size, depth, acc[d], d)
        acc[d] = 0.0
        seen[d] = 0
    return size


@njit(cache=True, nogil=True)
def search_batch(
    indptr: np.ndarray,
    doc_ids: np.ndarray,
    weights: np.ndarray,
    term_ptr: np.ndarray,
    terms: np.ndarray,
    n_docs: int,
    depth: int,
    out_docs: np.ndarray,
    out_scores: np.ndarray,
) -> None:
    """Fill ``out_docs``/``out_scores`` (n_queries, depth), pre-padded -1/-inf, with each query's top ``depth``.

    ``terms[term_ptr[q]:term_ptr[q + 1]]`` are query q's known term ids in query order;
    ``doc_ids`` are the index's doc ids viewed as uint32 (or uint64).
    """
    acc = np.zeros(n_docs, dtype=np.float64)  # (n_docs,) running sums, zero between queries
    seen = np.zeros(n_docs, dtype=np.uint8)  # (n_docs,) 1 where a query term occurs, zero between queries
    touched = np.empty(n_docs, dtype=np.int64)  # docs first reached by the current query (few postings)
    maxima = np.empty(-(-n_docs // _BLOCK), dtype=np.int64)  # per block of acc, its largest bits
    positive_terms = np.zeros(indptr.shape[0] - 1, dtype=np.uint8)  # _all_positive's cache
    heap_scores = np.empty(max(depth, 1), dtype=np.float64)
    heap_docs = np.empty(max(depth, 1), dtype=np.int64)
    for q in range(term_ptr.shape[0] - 1):
        query = terms[term_ptr[q] : term_ptr[q + 1]]
        n_postings, positive = 0, True
        for term in query:
            n_postings += indptr[term + 1] - indptr[term]
            positive &= _all_positive(indptr, weights, term, positive_terms)
        if n_postings == 0 or depth == 0:
            continue
        if n_postings * _DENSE <= n_docs:  # few postings: list the docs reached, offer and reset only those
            size = _sparse(indptr, doc_ids, weights, query, depth, acc, seen, touched, heap_scores, heap_docs)
        elif positive:  # many postings: one scan in doc order
            _scatter(indptr, doc_ids, weights, query, acc, seen, False)
            size = _scan_positive(acc, depth, heap_scores, heap_docs, maxima)
        else:
            _scatter(indptr, doc_ids, weights, query, acc, seen, True)
            size = _scan_marked(acc, seen, depth, heap_scores, heap_docs)
        _drain(heap_scores, heap_docs, size, out_scores[q], out_docs[q])


def ready() -> bool:
    """Whether ``search_batch`` is compiled in this process or saved in numba's cache (no compiling here).

    The cache check reads numba's index file path (an internal attribute): when numba moves it,
    this says False and callers use the numpy loop, which only costs time.
    """
    if search_batch.signatures:
        return True
    cache_file = getattr(getattr(search_batch, "_cache", None), "_cache_file", None)
    index_path = getattr(cache_file, "_index_path", None)
    return isinstance(index_path, str) and os.path.exists(index_path)


def compile_all() -> float:
    """Compile (or load from numba's cache) ``search_batch`` for indexes under 2**31 documents; seconds taken."""
    start = time.perf_counter()
    search_batch.compile(SIGNATURE)
    return time.perf_counter() - start


if __name__ == "__main__":
    print("compiling the BM25 query kernel into numba's cache (once per environment) ...", file=sys.stderr)
    print(f"done in {compile_all():.1f} s", file=sys.stderr)
