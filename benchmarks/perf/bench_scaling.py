"""Goal 5: each stage's cost at 10k, 50k and 100k chunks; growth must be linear or better.

Stages: BM25 build, BM25 queries (1,000, top-100), dense search (1,000 x 384, top-100),
fusion (two 1,000 x 100 runs) and document metrics (1,000 queries; chunk -> document mapping
over the whole corpus included). Growth exponent = log(t(100k) / t(10k)) / log(10): 1 is
linear; up to 1.2 is allowed for timing noise on a shared machine.
"""

from __future__ import annotations

import math

import numpy as np
from common import Check, best_of, queries_from, report, single_thread, unit_vectors, zipf_corpus

from rag_bench.index.bm25.index import BM25Index
from rag_bench.index.dense import DenseIndex
from rag_bench.retrieve.fusion.rrf import rrf
from rag_bench.score.documents import document_metrics, document_run

SIZES, N_QUERIES, DEPTH, DIM = (10_000, 50_000, 100_000), 1_000, 100, 384


def stage_times(n_chunks: int) -> dict[str, float]:
    """Best-of-3 seconds of every stage over ``n_chunks`` chunks."""
    docs = zipf_corpus(n_chunks, seed=8)
    queries = queries_from(docs, N_QUERIES, seed=9)
    vectors, query_vectors = unit_vectors(n_chunks, DIM, seed=10), unit_vectors(N_QUERIES, DIM, seed=11)
    index = BM25Index.build(docs)
    dense = DenseIndex(vectors)
    bm25_idx, bm25_scores = index.search(queries, DEPTH)
    dense_idx, _ = dense.search(query_vectors, DEPTH)
    chunk_docs = [f"d{c // 4:07d}" for c in range(n_chunks)]  # four chunks per document
    judgements = [{chunk_docs[c]: 1 for c in row[:3].tolist() if c >= 0} for row in dense_idx]
    return {
        "bm25 build": best_of(lambda: BM25Index.build(docs), 3),
        "bm25 queries": best_of(lambda: index.search(queries, DEPTH), 3),
        "dense search": best_of(lambda: dense.search(query_vectors, DEPTH), 3),
        "fusion": best_of(lambda: rrf([bm25_idx, dense_idx]), 3),
        "metrics": best_of(
            lambda: document_metrics(document_run(bm25_idx, bm25_scores, chunk_docs), judgements, (10, 100)), 3
        ),
    }


def main() -> None:
    with single_thread():
        times = {n: stage_times(n) for n in SIZES}
    stages = list(times[SIZES[0]])
    header = "stage".ljust(14) + "".join(f"{n:>12,}" for n in SIZES) + "   growth exponent"
    details = [header]
    checks = []
    for stage in stages:
        row = [times[n][stage] for n in SIZES]
        exponent = math.log(row[-1] / row[0]) / math.log(SIZES[-1] / SIZES[0])
        details.append(stage.ljust(14) + "".join(f"{t * 1e3:10.1f}ms" for t in row) + f"   {exponent:.2f}")
        checks.append(Check("5 scaling", f"{stage} growth exponent 10k -> 100k", exponent, "<=", 1.2))
    report("Goal 5: scaling", checks, details)


if __name__ == "__main__":
    np.seterr(all="raise")
    main()
