"""Issue 32 goal 3: the embedding stage's own bookkeeping against the embedder's compute, and its growth.

Distinct synthetic chunk texts (about 120 words each, like 800-character chunks) are embedded into a
fresh cache through the pipeline's own path (``embed_cached`` with ``memory_map=True``, as dense retrieval
calls it: text keys, claims, a look at the cache per claim, batch commits, the corpus matrix written and
mapped) by the hashing embedder (``embedder=fake``, the vectors of the whole-run comparisons). The embedder's
own compute is timed inside its ``embed`` calls; the overhead is the stage's wall time minus that. Goals:
overhead <= 10% of the embedder's time at the largest size, and overhead growth exponent
log(overhead_large / overhead_small) / log(n_large / n_small) <= 1.05 (linear). The smaller sizes are measured
in several rounds (``ROUNDS``: 5 at 10k texts, 3 at 50k, 1 at 200k) and the round with the median overhead is
kept: at 10k texts the overhead is about 70 ms, where 10 ms of noise moves the exponent by 0.05.

With ``--reference CHECKOUT`` (a checkout of the code before, e.g. ``git worktree add /tmp/base main``) the
largest size is also measured with that code, in a child process right after this code's own, and printed
beside it (the same texts, the same benchmark; run_all passes ``$BENCH_REFERENCE``).

Usage: python benchmarks/perf/bench_embed_overhead.py [--sizes 10000,50000,200000] [--reference CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from common import Check, report

from rag_bench.core.cache import DiskCache
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.store import VectorStore
from rag_bench.testing import FakeEmbedder

DIM = 384


def rounds(n: int) -> int:
    """How many times size ``n`` is measured (the round with the median overhead is kept)."""
    return 5 if n <= 10_000 else 3 if n <= 50_000 else 1


class TimedEmbedder(FakeEmbedder):
    """The hashing embedder, with the seconds (wall and this process's CPU) spent inside ``embed`` added up."""

    def __init__(self, dimension: int) -> None:
        super().__init__(dimension)
        self.seconds = self.cpu = 0.0

    def embed(self, texts, input_type="document"):
        start, cpu = time.perf_counter(), time.process_time()
        out = super().embed(texts, input_type)
        self.seconds += time.perf_counter() - start
        self.cpu += time.process_time() - cpu
        return out


def texts(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct texts of about 120 words from a 20,000-word vocabulary."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(20_000)])
    picks = rng.integers(0, len(words), (n, 120))
    return [" ".join(words[row]) + f" t{i}" for i, row in enumerate(picks)]


def measure(n: int) -> tuple[float, float, float, float]:
    """(stage seconds, embedder seconds, stage CPU seconds, embedder CPU seconds) embedding ``n`` new texts into
    a fresh cache. CPU seconds leave out the time spent waiting (for the disk, for other processes on the cores)."""
    corpus = texts(n)
    embedder = TimedEmbedder(DIM)
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        store = VectorStore(DiskCache(tmp), embedder.name, DIM, "document")
        start, cpu = time.perf_counter(), time.process_time()
        vectors, stats = embed_cached(embedder, store, corpus, "document", "embedding", memory_map=True)
        total, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert stats.embedded == n and vectors.shape == (n, DIM)
        del vectors
    return total, embedder.seconds, cpu, embedder.cpu


def measure_reference(checkout: str, n: int) -> tuple[float, float, float, float]:
    """``measure(n)`` with the code in ``checkout``, in a child process."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout)}
    done = subprocess.run(
        [sys.executable, __file__, "--measure", str(n)], env=env, capture_output=True, text=True, check=True
    )
    return tuple(json.loads(done.stdout.splitlines()[-1]))


def line(label: str, total: float, embedder: float, cpu: float, embedder_cpu: float) -> str:
    return (
        f"{label}: stage {total:7.2f} s, embedder {embedder:7.2f} s, overhead {total - embedder:6.2f} s "
        f"({(total - embedder) / embedder:.1%}; CPU only {cpu - embedder_cpu:5.2f} s, "
        f"{(cpu - embedder_cpu) / embedder_cpu:.1%}), load average {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,50000,200000")
    parser.add_argument("--reference", default=None)
    parser.add_argument("--measure", type=int, default=None)
    args = parser.parse_known_args()[0]
    os.environ.setdefault("RAG_BENCH_QUIET", "1")
    if args.measure:  # the child of measure_reference
        print(json.dumps(measure(args.measure)))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    rows, details = {}, []
    for n in sizes:
        measured = sorted((measure(n) for _ in range(rounds(n))), key=lambda row: row[0] - row[1])
        total, embedder, cpu, embedder_cpu = measured[len(measured) // 2]
        rows[n] = (total, embedder, total - embedder)
        spread = ", ".join(f"{row[0] - row[1]:.3f}" for row in measured)
        label = f"{n:>7} texts"
        if len(measured) > 1:
            label += f" (median of {len(measured)} rounds' overheads: {spread} s)"
        details.append(line(label, total, embedder, cpu, embedder_cpu))
    small, large = min(sizes), max(sizes)
    if args.reference:
        measured = measure_reference(args.reference, large)
        details.append(line(f"{large:>7} texts, the code in {args.reference}", *measured))
    growth = math.log(rows[large][2] / rows[small][2]) / math.log(large / small)
    share = rows[large][2] / rows[large][1]
    checks = [
        Check("32.3 embed overhead", f"overhead / embedder time at {large} texts", share, "<=", 0.1),
        Check("32.3 embed overhead", f"overhead growth exponent {small} -> {large}", growth, "<=", 1.05),
    ]
    report("Issue 32 goal 3: embedding-stage overhead (hashing embedder, fresh cache)", checks, details)


if __name__ == "__main__":
    main()
