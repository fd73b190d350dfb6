"""Goal 6: optional approximate index (faiss HNSW): recall@100 against exact search, and speed.

Vectors are drawn around 1,000 cluster centres (embeddings of real text cluster by topic;
uniformly random directions in 384 dimensions are a worst case no real corpus resembles).
The graph is built once on one thread; each ``ef`` is then searched and compared with exact
``DenseIndex`` results.
"""

from __future__ import annotations

import time

import numpy as np
from common import Check, best_of, report, single_thread

from rag_bench.index.dense import DenseIndex
from rag_bench.index.hnsw import HNSWIndex, recall_at_depth

N_CHUNKS, DIM, N_QUERIES, DEPTH, M, EF_CONSTRUCTION = 50_000, 384, 1_000, 100, 16, 100
EFS = (100, 200, 400)


def clustered(n: int, seed: int, centres: np.ndarray) -> np.ndarray:
    """Unit vectors: a random centre plus noise of about the same norm, renormalised."""
    rng = np.random.default_rng(seed)
    x = centres[rng.integers(0, len(centres), n)] + rng.standard_normal((n, DIM), dtype=np.float32) / np.sqrt(DIM)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def main() -> None:
    centres = np.random.default_rng(12).standard_normal((1_000, DIM), dtype=np.float32) / np.sqrt(DIM)
    docs, queries = clustered(N_CHUNKS, 13, centres), clustered(N_QUERIES, 14, centres)
    with single_thread():
        exact = DenseIndex(docs)
        exact_idx, _ = exact.search(queries, DEPTH)
        exact_s = best_of(lambda: exact.search(queries, DEPTH), 3)
        start = time.perf_counter()
        index = HNSWIndex(docs, M=M, ef=EFS[0], ef_construction=EF_CONSTRUCTION)
        build_s = time.perf_counter() - start
        rows = []
        for ef in EFS:
            index.ef = ef
            approx_idx, _ = index.search(queries, DEPTH)
            rows.append((ef, recall_at_depth(approx_idx, exact_idx), best_of(lambda: index.search(queries, DEPTH), 3)))
    details = [
        f"{N_CHUNKS} x {DIM} clustered unit vectors, {N_QUERIES} queries, top-{DEPTH}, one thread; "
        f"M={M}, ef_construction={EF_CONSTRUCTION}; build {build_s:.1f} s, {index.nbytes / 2**20:.0f} MiB",
        f"exact DenseIndex: {exact_s:.3f} s",
    ]
    for ef, recall, seconds in rows:
        details.append(
            f"ef={ef:4d}: recall@{DEPTH} {recall:.4f}, {seconds:.3f} s ({exact_s / seconds:.1f}x exact's speed)"
        )
    checks = [Check("6 hnsw", f"recall@{DEPTH} vs exact at ef={ef}", recall, "info", 0.0) for ef, recall, _ in rows]
    report("Goal 6: approximate index (HNSW, optional extra 'ann')", checks, details)


if __name__ == "__main__":
    main()
