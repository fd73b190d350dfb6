"""What claims (leases, one per batch) cost a single process: cold embedding through the cache, with and without.

Usage: python benchmarks/claims_overhead.py [--texts 2000] [--repeats 3]

Embeds the same texts into a fresh cache again and again, alternating the real store (the texts of
each batch claimed with one lease before they are embedded, released after they are committed) with
the same store whose claims are replaced by a stand-in that grants every key and writes nothing: the
reference, measured in the same run. Reported for the local MiniLM model (what a sweep pays) and for
the hashing fake embedder (near-free embedding, so the claims' own cost shows), best of --repeats each.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from rag_bench.core.cache import DiskCache
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.store import VectorStore
from rag_bench.testing import FakeEmbedder


class NoClaims:
    """Grants every key at once and keeps nothing: the store as it was before claims."""

    broken = 0

    def take(self, keys, limit):
        return list(keys)[:limit]

    def release(self, keys) -> None:
        pass

    def break_stale(self, keys) -> int:
        return 0


def cold(embedder, texts: list[str], claims: bool) -> float:
    folder = Path(tempfile.mkdtemp(prefix="rag-bench-claims-"))
    try:
        store = VectorStore(DiskCache(folder), embedder.name, embedder.dimension, "document")
        if not claims:
            store.claims = NoClaims()
        start = time.perf_counter()
        _, stats = embed_cached(embedder, store, texts, "document")
        elapsed = time.perf_counter() - start
        assert stats.embedded == len(set(texts))
        return elapsed
    finally:
        shutil.rmtree(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from rag_bench.embed.local import MiniLMEmbedder

    texts = [
        f"passage {i}: the incident report for service {i % 37} lists error ERR_{i:04d}" for i in range(args.texts)
    ]
    for name, embedder in (("local MiniLM", MiniLMEmbedder()), ("fake (hashing)", FakeEmbedder(384))):
        embedder.embed(texts[:64], "document")  # load the model before timing
        best = {True: float("inf"), False: float("inf")}
        for _ in range(args.repeats):
            for claims in (False, True):
                best[claims] = min(best[claims], cold(embedder, texts, claims))
        print(
            f"{name}: {args.texts} texts cold, best of {args.repeats}: with claims {best[True]:.3f} s, "
            f"without {best[False]:.3f} s, ratio {best[True] / best[False]:.3f} "
            f"({(best[True] - best[False]) / args.texts * 1e6:.0f} us per text)"
        )


if __name__ == "__main__":
    main()
