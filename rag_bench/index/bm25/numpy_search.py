"""BM25 query path in numpy: per query, one ``np.bincount`` over its postings, then the top depth.

``BM25Index.search`` runs it where the C extension was not built, and it is the reference the C
kernel (``search`` in ``_loops_search.c``) is checked against. A query's postings are concatenated
term by term in query order and added by one bincount into a zeroed array: each document's
weights in the same order as ``BM25Index.scores`` (and rank-bm25's ``get_scores``), so the same
float64 sums as the C kernel.
When every weight of the query is positive, a document holds a query term iff its sum is > 0,
and the ``depth``-th largest maximum over blocks of ``_BLOCK`` documents is a score that
``depth`` documents reach: only documents at or above it are candidates (every tie with the
depth-th best included). Otherwise every document a posting reaches is a candidate.
"""

from __future__ import annotations

import numpy as np

from rag_bench.index.topk import top_k_row

_BLOCK = 64  # documents per block in the candidate floor


def search_batch(
    indptr: np.ndarray,
    doc_ids: np.ndarray,
    weights: np.ndarray,
    positive: np.ndarray,
    per_query: list[list[int]],
    n_docs: int,
    indices: np.ndarray,
    values: np.ndarray,
) -> None:
    """Fill ``indices``/``values`` (n_queries, depth), pre-padded -1/-inf, with each query's top ``depth``.

    ``per_query[q]`` are query q's known term ids in query order; ``positive[t]`` says whether
    every posting weight of term t is > 0.
    """
    depth = indices.shape[1]
    if depth == 0:
        return
    n_blocks = -(-n_docs // _BLOCK)
    starts = indptr.tolist()
    for row, term_ids in enumerate(per_query):
        if not term_ids:
            continue
        spans = [(starts[t], starts[t + 1]) for t in term_ids]
        docs = np.concatenate([doc_ids[start:stop] for start, stop in spans])  # (n_postings,)
        acc = np.bincount(docs, np.concatenate([weights[start:stop] for start, stop in spans]), n_blocks * _BLOCK)
        if positive[term_ids].all():
            maxima = acc.reshape(n_blocks, _BLOCK).max(axis=1)  # (n_blocks,)
            floor = np.partition(maxima, n_blocks - depth)[n_blocks - depth] if n_blocks >= depth else 0.0
            cand = np.flatnonzero(acc >= floor) if floor > 0 else np.flatnonzero(acc > 0)  # (n_cand,) ascending
        else:
            cand = np.flatnonzero(np.bincount(docs, minlength=n_docs))  # (n_cand,) every doc reached
        top, top_scores = top_k_row(acc[cand], depth)  # cand ascending, so ties keep doc order
        indices[row, : len(top)] = cand[top]
        values[row, : len(top)] = top_scores


def positive_terms(indptr: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(n_terms,) bool: whether every posting weight of each term is > 0."""
    nonempty = np.diff(indptr) > 0  # (n_terms,) every vocabulary term has postings, but be safe
    lowest = np.zeros(len(nonempty))
    if nonempty.any():
        lowest[nonempty] = np.minimum.reduceat(weights, indptr[:-1][nonempty])
    return lowest > 0
