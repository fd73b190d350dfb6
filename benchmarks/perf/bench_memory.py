"""Goal 4: chunk vectors served from the cache memory-mapped; 100,000 x 1,024 peaks below 2x the vector bytes.

Each measurement is a fresh child process (peak RSS is per process): embed 100,000 chunk
texts through the cache (all already cached) and search them with 1,000 queries, top-100.
"batches" is ``embed_cached`` without memory mapping (the vectors read from the batch entries
into memory, the reference); "cold" and "warm" use ``embed_cached(..., memory_map=True)`` (what
the pipeline does for chunk vectors) on its first use, which writes the matrix entry, and on a
later run, which maps it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import Check, peak_rss_bytes, report, unit_vectors

import rag_bench.embed.cached as cached_module
import rag_bench.embed.store as store_module
from rag_bench.core.cache import DiskCache

N_CHUNKS, DIM, N_QUERIES, DEPTH = 100_000, 1_024, 1_000, 100
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


class CachedOnly:
    """An embedder whose vectors are all in the cache already: being called is a failure."""

    name, dimension = "bench/cached-only", DIM

    def embed(self, texts: list[str], input_type: str) -> np.ndarray:
        raise AssertionError(f"{len(texts)} texts were not served from the cache")


def texts() -> list[str]:
    return [f"chunk {i:06d} of the memory benchmark" for i in range(N_CHUNKS)]


def fill(cache_dir: str) -> None:
    """Child: put every chunk's vector in the cache, 4,096 vectors per entry."""

    store = store_module.VectorStore(DiskCache(cache_dir), CachedOnly.name, DIM, "document")
    keys = [store_module.text_key(t) for t in texts()]
    for first in range(0, N_CHUNKS, 4096):
        block = keys[first : first + 4096]
        store.commit(block, unit_vectors(len(block), DIM, seed=first))


def measure(cache_dir: str, variant: str) -> None:
    """Child: serve the vectors through the cache and search them; print peak RSS as JSON."""
    from rag_bench.index.dense import DenseIndex

    queries = unit_vectors(N_QUERIES, DIM, seed=7)
    items = texts()
    baseline = peak_rss_bytes()
    start = time.perf_counter()
    store = store_module.VectorStore(DiskCache(cache_dir), CachedOnly.name, DIM, "document")
    options = {} if variant == "batches" else {"memory_map": True}
    vectors, stats = cached_module.embed_cached(CachedOnly(), store, items, "document", **options)
    loaded = time.perf_counter() - start
    DenseIndex(vectors).search(queries, DEPTH)
    result = {
        "peak": peak_rss_bytes(),
        "baseline": baseline,
        "bytes": int(vectors.nbytes),
        "mapped": isinstance(vectors, np.memmap),
        "load_s": loaded,
        "total_s": time.perf_counter() - start,
        "hits": stats.cache_hits,
    }
    print(json.dumps(result))


def child(*args: str) -> dict:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}


def main() -> None:
    with tempfile.TemporaryDirectory() as cache_dir:
        child("--fill", cache_dir)
        runs = {v: child("--measure", cache_dir, v) for v in ("batches", "cold", "warm")}
    vector_bytes = runs["warm"]["bytes"]
    details = [
        f"{N_CHUNKS} x {DIM} float32 = {vector_bytes / 2**20:.0f} MiB of chunk vectors, all cached; "
        f"then {N_QUERIES} queries, top-{DEPTH}"
    ]
    for name, r in runs.items():
        details.append(
            f"{name:7s}: peak RSS {r['peak'] / 2**20:.0f} MiB = {r['peak'] / vector_bytes:.2f}x the vectors "
            f"(interpreter and imports {r['baseline'] / 2**20:.0f} MiB); memory-mapped: {r['mapped']}; "
            f"vectors ready in {r['load_s']:.2f} s, searched by {r['total_s']:.2f} s"
        )
    checks = [
        Check("4 memory", "warm run peak RSS / vector bytes", runs["warm"]["peak"] / vector_bytes, "<", 2.0),
        Check("4 memory", "cold run peak RSS / vector bytes", runs["cold"]["peak"] / vector_bytes, "<", 2.0),
    ]
    report("Goal 4: memory-mapped vectors", checks, details)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--fill":
        fill(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "--measure":
        measure(sys.argv[2], sys.argv[3])
    else:
        main()
