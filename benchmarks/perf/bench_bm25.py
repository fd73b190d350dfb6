"""Goal 1: BM25 over 50,000 chunks, 1,000 queries, top-100, against rank-bm25 and bm25s (numba).

Scores must equal rank-bm25's BM25Okapi exactly; the index build must be no slower than
rank-bm25's; queries at least 500x faster than rank-bm25 and no slower than bm25s with its
numba backend (both single-threaded: bm25s gets n_threads=1, our C kernel is serial).
rank-bm25 takes ~0.1 s a query, so it answers a sample of the queries and its per-query time
is compared. Ours runs the C kernel that the install builds (``search`` in
``rag_bench/index/bm25/_loops_search.c``, what ``BM25Index.search`` runs wherever the extension was built);
the numpy loop, which runs without the extension (``compiled.LOOPS = None``), is timed too and
must give the same arrays.
"""

from __future__ import annotations

import time

import bm25s
import numpy as np
from common import Check, best_of, interleaved, queries_from, report, single_thread, zipf_corpus
from rank_bm25 import BM25Okapi

from rag_bench.index.bm25 import compiled
from rag_bench.index.bm25.index import BM25Index
from rag_bench.index.topk import top_k_row

N_DOCS, N_QUERIES, DEPTH, SAMPLE = 50_000, 1_000, 100, 25


def main() -> None:
    corpus = zipf_corpus(N_DOCS, seed=1)
    queries = queries_from(corpus, N_QUERIES, seed=2)
    sample = queries[:SAMPLE]
    with single_thread():
        built: dict[str, object] = {}
        build = interleaved(
            {
                "rank-bm25": lambda: built.__setitem__("rank", BM25Okapi(corpus)),
                "ours": lambda: built.__setitem__("ours", BM25Index.build(corpus)),
            },
            repeats=3,
        )
        rank, ours = built["rank"], built["ours"]
        start = time.perf_counter()
        reference = [rank.get_scores(q) for q in sample]  # (n_docs,) float64 each
        rank_per_query = (time.perf_counter() - start) / SAMPLE
        diff = max(float(np.abs(ours.scores(q) - ref).max()) for q, ref in zip(sample, reference, strict=True))
        idx, _ = ours.search(sample, DEPTH)
        same_top = all(
            top_k_row(ref, DEPTH, valid=ref != 0)[0].tolist() == row[row >= 0].tolist()
            for ref, row in zip(reference, idx, strict=True)
        )

        fast = bm25s.BM25(k1=1.5, b=0.75, method="robertson", backend="numba")
        fast.index(corpus, show_progress=False)
        fast.retrieve(sample, k=DEPTH, n_threads=1, show_progress=False)  # compile the numba kernels
        query = interleaved(
            {
                "ours": lambda: ours.search(queries, DEPTH),
                "bm25s": lambda: fast.retrieve(queries, k=DEPTH, n_threads=1, show_progress=False),
            },
            repeats=3,
        )
        fast_out = ours.search(queries, DEPTH)
        loops, compiled.LOOPS = compiled.LOOPS, None  # the numpy loop, as without the C extension
        try:
            fallback = best_of(lambda: built.__setitem__("numpy", ours.search(queries, DEPTH)), 1)
        finally:
            compiled.LOOPS = loops
        same_fallback = all(a.tobytes() == b.tobytes() for a, b in zip(fast_out, built["numpy"], strict=True))
    ours_per_query = query["ours"] / N_QUERIES
    details = [
        f"{N_DOCS} docs ({sum(map(len, corpus))} tokens, Zipfian), {N_QUERIES} queries of 6 terms, top-{DEPTH}",
        f"build: rank-bm25 {build['rank-bm25']:.2f} s, ours {build['ours']:.2f} s",
        f"query: rank-bm25 {rank_per_query * 1e3:.1f} ms/query (on {SAMPLE} queries), "
        f"ours {query['ours']:.3f} s ({ours_per_query * 1e6:.0f} us/query), bm25s-numba {query['bm25s']:.3f} s",
        f"scores vs rank-bm25: max |diff| {diff:g} on {SAMPLE} queries; top-{DEPTH} ids identical: {same_top}",
        f"ours runs the {'C kernel' if loops is not None else 'numpy loop (the C extension is not built)'}; "
        f"the numpy loop alone: {fallback:.3f} s, output identical bit for bit on all {N_QUERIES} queries: "
        f"{same_fallback}",
    ]
    checks = [
        Check("1 bm25", "max |score - rank-bm25|", diff, "<=", 0.0),
        Check("1 bm25", "top-100 ids equal rank-bm25's (1 = yes)", float(same_top), ">=", 1.0),
        Check("1 bm25", "build speed-up vs rank-bm25", build["rank-bm25"] / build["ours"], ">=", 1.0),
        Check("1 bm25", "query speed-up vs rank-bm25", rank_per_query / ours_per_query, ">=", 500.0),
        Check("1 bm25", "query speed-up vs bm25s-numba", query["bm25s"] / query["ours"], ">=", 1.0),
    ]
    report("Goal 1: BM25", checks, details)


if __name__ == "__main__":
    main()
