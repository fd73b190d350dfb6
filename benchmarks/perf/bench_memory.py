"""Goal 4: chunk vectors served from the cache memory-mapped; 100,000 x 1,024 peaks below 2x the vector bytes.

Each measurement is a fresh child process (peak RSS is per process): embed 100,000 chunk
texts through the cache (all already cached) and search them with 1,000 queries, top-100.
"current" is today's ``embed_cached``; "cold" and "warm" use the proposed patch
(``store_mmap.patch``: ``embed_cached(..., memory_map=True)``) on its first use, which writes
the matrix entry, and on a later run, which maps it. Until the patch is applied, it is
applied to a temporary copy of ``store.py``.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import Check, peak_rss_bytes, report, unit_vectors

N_CHUNKS, DIM, N_QUERIES, DEPTH = 100_000, 1_024, 1_000, 100
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


class CachedOnly:
    """An embedder whose vectors are all in the cache already: being called is a failure."""

    name, dimension = "bench/cached-only", DIM

    def embed(self, texts: list[str], input_type: str) -> np.ndarray:
        raise AssertionError(f"{len(texts)} texts were not served from the cache")


def store_module(patched: bool):  # the store module, today's or with the proposed patch
    import rag_bench.embed.store as current

    if not patched or "memory_map" in inspect.signature(current.embed_cached).parameters:
        return current
    work = Path(tempfile.mkdtemp())
    for name in ("rag_bench/embed/store.py", "rag_bench/retrieve.py"):
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, work / name)
    subprocess.run(["patch", "-s", "-p1", "-d", str(work), "-i", str(HERE / "store_mmap.patch")], check=True)
    spec = importlib.util.spec_from_file_location("store_mmap", work / "rag_bench/embed/store.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def texts() -> list[str]:
    return [f"chunk {i:06d} of the memory benchmark" for i in range(N_CHUNKS)]


def fill(cache_dir: str) -> None:
    """Child: put every chunk's vector in the cache, 4,096 vectors per entry."""
    from rag_bench.cache import DiskCache

    store_mod = store_module(patched=False)
    store = store_mod.VectorStore(DiskCache(cache_dir), CachedOnly.name, DIM, "document")
    keys = [store_mod.text_key(t) for t in texts()]
    for first in range(0, N_CHUNKS, 4096):
        block = keys[first : first + 4096]
        store.commit(block, unit_vectors(len(block), DIM, seed=first))


def measure(cache_dir: str, variant: str) -> None:
    """Child: serve the vectors through the cache and search them; print peak RSS as JSON."""
    from rag_bench.cache import DiskCache
    from rag_bench.index.dense import DenseIndex

    store_mod = store_module(patched=variant != "current")
    queries = unit_vectors(N_QUERIES, DIM, seed=7)
    items = texts()
    baseline = peak_rss_bytes()
    start = time.perf_counter()
    store = store_mod.VectorStore(DiskCache(cache_dir), CachedOnly.name, DIM, "document")
    options = {} if variant == "current" else {"memory_map": True}
    vectors, stats = store_mod.embed_cached(CachedOnly(), store, items, "document", **options)
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
        runs = {v: child("--measure", cache_dir, v) for v in ("current", "cold", "warm")}
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
    report("Goal 4: memory-mapped vectors (proposed store_mmap.patch)", checks, details)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--fill":
        fill(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "--measure":
        measure(sys.argv[2], sys.argv[3])
    else:
        main()
