"""Goal S5 (backends): pgvector (on the embedded server) and Chroma against exact search on the same vectors.

Per backend: recall@depth against exact ``DenseIndex``, build seconds, size on disk, and the
p50 / p95 latency of one query, each latency also as a ratio to exact in-memory search of the
same query measured in the same run. Also a filter that allows 2% of the rows: filtered
recall against exact filtered search, the collapse the issue describes (pgvector's default
ef_search = 40 returns about 40 x 2% rows before the filter).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from common import Check, report

from rag_bench.core.cache import DiskCache
from rag_bench.core.filters import MetadataTable, parse_filter
from rag_bench.index.base import IndexContext
from rag_bench.index.dense import DenseIndex
from rag_bench.index.hnsw import recall_at_depth
from rag_bench.index.registry import VECTOR_INDEXES

N_CHUNKS, DIM, N_QUERIES, DEPTH = 20_000, 384, 200, 20
GOAL = "S5 backends"  # no recall or latency target is set: every number is reported, none judged
BACKENDS = {
    "pgvector hnsw ef_search=40": ("pgvector", {"method": "hnsw", "ef_search": 40}),
    "pgvector hnsw ef_search=200": ("pgvector", {"method": "hnsw", "ef_search": 200}),
    "pgvector hnsw iterative strict": ("pgvector", {"method": "hnsw", "iterative_scan": "strict_order"}),
    "pgvector ivfflat lists=100 probes=10": ("pgvector", {"method": "ivfflat", "probes": 10}),
    "chroma ef_search=20": ("chroma", {"ef_search": 20}),
    "chroma ef_search=100": ("chroma", {}),
}


def clustered(n: int, seed: int, centres: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = centres[rng.integers(0, len(centres), n)] + rng.standard_normal((n, DIM), dtype=np.float32) / np.sqrt(DIM)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def timed(index, queries, filters) -> tuple[np.ndarray, np.ndarray]:
    """(n, depth) results and (n,) seconds, one query at a time."""
    rows, seconds = [], np.zeros(len(queries))
    for i in range(len(queries)):
        start = time.perf_counter()
        rows.append(index.search(queries[i : i + 1], DEPTH, filters[i : i + 1])[0][0])
        seconds[i] = time.perf_counter() - start
    return np.array(rows), seconds


def main() -> None:
    centres = np.random.default_rng(12).standard_normal((500, DIM), dtype=np.float32) / np.sqrt(DIM)
    docs, queries = clustered(N_CHUNKS, 13, centres), clustered(N_QUERIES, 14, centres)
    metadata = MetadataTable([{"team": "rare" if i % 50 == 0 else "common"} for i in range(N_CHUNKS)])
    rare = parse_filter({"team": "rare"})
    none, only_rare = [None] * N_QUERIES, [rare] * N_QUERIES
    exact = DenseIndex(docs, metadata)
    truth, exact_s = timed(exact, queries, none)
    exact_p95 = float(np.percentile(exact_s, 95) * 1e3)
    truth_rare, _ = timed(exact, queries, only_rare)
    cache_dir = Path(tempfile.mkdtemp(prefix="rag-bench-bench-"))
    cache_dir.chmod(0o755)
    details = [f"{N_CHUNKS} x {DIM} clustered unit vectors, {N_QUERIES} queries one at a time, top-{DEPTH}; "
               f"exact in-memory p50 {np.median(exact_s) * 1e3:.2f} ms"]  # fmt: skip
    checks = []
    try:
        context = IndexContext(DiskCache(cache_dir), "bench-vectors", metadata, "bench-metadata")
        for label, (name, settings) in BACKENDS.items():
            start = time.perf_counter()
            index = VECTOR_INDEXES.build(VECTOR_INDEXES[name].schema(**settings), docs, context)
            build_s = time.perf_counter() - start
            found, seconds = timed(index, queries, none)
            found_rare, _ = timed(index, queries, only_rare)
            recall, recall_rare = recall_at_depth(found, truth), recall_at_depth(found_rare, truth_rare)
            p50, p95 = np.percentile(seconds, [50, 95]) * 1e3
            ratio = float(np.median(seconds) / np.median(exact_s))
            details.append(
                f"{label}: recall@{DEPTH} {recall:.4f}, filtered (2% of rows) {recall_rare:.4f}; build {build_s:.1f} s "
                f"(loading the vectors and building the index), {index.nbytes / 2**20:.1f} MiB on disk; "
                f"p50 {p50:.2f} ms, p95 {p95:.2f} ms, {ratio:.1f}x exact's per-query time"
            )
            checks.append(Check(GOAL, f"{label} recall@{DEPTH} vs exact", recall, "info", 0.0))
            checks.append(Check(GOAL, f"{label} filtered recall@{DEPTH}", recall_rare, "info", 0.0))
            checks.append(Check(GOAL, f"{label} build seconds", build_s, "info", 0.0))
            checks.append(Check(GOAL, f"{label} p95 query ms", p95, "info", 0.0, f"(exact p95 {exact_p95:.2f} ms)"))
    finally:
        from rag_bench.index.postgres.server import release

        release(cache_dir / "pgvector")
        shutil.rmtree(cache_dir, ignore_errors=True)
    report("Goal S5: database backends (pgvector, Chroma; optional extra 'db')", checks, details)


if __name__ == "__main__":
    main()
