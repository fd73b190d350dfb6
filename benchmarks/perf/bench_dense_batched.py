"""Issue 32 goal 2: dense retrieval's search step, batched, against faiss IndexFlatIP on the same vectors.

The search step is what ``DenseRetriever.retrieve`` runs once its vectors are embedded: every question in
one ``DenseIndex.search`` call, then ``sampled_latency`` (up to 64 evenly spaced questions searched one at a
time, within a tenth of the batch's time, for the p50/p95 it reports). The reference is faiss
``IndexFlatIP.search`` over all questions at once, in a child process (faiss ships its own OpenBLAS;
run_all clears OPENBLAS_CORETYPE so both pick their own kernel). One thread each (threadpoolctl's counts
of both sides are printed). The two sides take turns, ROUNDS times, and the goal is on the median of the
per-round ratios (a load change between two rounds moves both sides of one round alike): ours / faiss
<= 1.2. Also printed: best and median of each side, the rankings against faiss, and the per-query loop
the retriever ran before (timed on 500 questions, scaled to all, labelled as such).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from common import Check, report, single_thread, unit_vectors
from threadpoolctl import threadpool_info

from rag_bench.index.dense import DenseIndex
from rag_bench.retrieve.dense import LATENCY_BUDGET, LATENCY_SAMPLE, sampled_latency

N_CHUNKS, DIM, N_QUERIES, DEPTH, ROUNDS = 20_000, 384, 10_000, 20, 7
LOOP_SAMPLE = 500  # questions the old one-at-a-time loop is timed on


def data() -> tuple[np.ndarray, np.ndarray]:
    return unit_vectors(N_CHUNKS, DIM, seed=13), unit_vectors(N_QUERIES, DIM, seed=14)


def faiss_child() -> None:
    """Serve timings of faiss's search: one search per line read from stdin, its seconds written back; at
    end of input, the last rankings and the BLAS thread counts go to the file named on the command line."""
    import faiss

    docs, queries = data()
    faiss.omp_set_num_threads(1)
    index = faiss.IndexFlatIP(DIM)
    index.add(docs)
    with single_thread():
        threads = blas_threads()
        for _ in sys.stdin:
            start = time.perf_counter()
            scores, ids = index.search(queries, DEPTH)
            print(time.perf_counter() - start, flush=True)
    np.savez(sys.argv[2], ids=ids, scores=scores, threads=threads, omp=faiss.omp_get_max_threads())


def blas_threads() -> str:
    """Each BLAS/OpenMP library loaded here with its thread count (threadpoolctl)."""
    return "; ".join(f"{i['internal_api']} {i['num_threads']}" for i in threadpool_info())


def main() -> None:
    docs, queries = data()
    index, filters = DenseIndex(docs), [None] * N_QUERIES

    def step() -> None:  # the retriever's search step: one batch, then the latency sample within its budget
        start = time.perf_counter()
        index.search(queries, DEPTH, filters)
        budget = max(0.05, LATENCY_BUDGET * (time.perf_counter() - start))
        sampled_latency(index, queries, DEPTH, filters, budget_s=budget)

    def loop() -> None:  # the code before: one search per question (on a sample)
        for i in range(LOOP_SAMPLE):
            index.search(queries[i : i + 1], DEPTH, filters[i : i + 1])

    # faiss in a child process (its own OpenBLAS; run_all clears OPENBLAS_CORETYPE so both pick their own
    # kernel), the two sides taking turns round by round, so a change of load moves both alike
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "faiss.npz")
        child = subprocess.Popen(
            [sys.executable, __file__, "--faiss-child", out], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        ours, theirs = [], []
        try:
            with single_thread():
                our_threads = blas_threads()
                for _ in range(ROUNDS):
                    child.stdin.write(b"go\n")
                    child.stdin.flush()
                    theirs.append(float(child.stdout.readline()))
                    start = time.perf_counter()
                    step()
                    ours.append(time.perf_counter() - start)
            child.stdin.close()
            if child.wait(timeout=120) != 0:
                raise SystemExit("the faiss child failed")
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        with np.load(out) as saved:
            faiss_run = {k: saved[k] for k in saved.files}
    with single_thread():
        start = time.perf_counter()
        loop()
        loop_all = (time.perf_counter() - start) * N_QUERIES / LOOP_SAMPLE
        idx, scores = index.search(queries, DEPTH)
    ratios = np.array(ours) / np.array(theirs)  # (ROUNDS,) ours over faiss, round by round
    same = float((idx == faiss_run["ids"]).mean())
    gap = float(np.abs(scores - faiss_run["scores"]).max())
    load = os.getloadavg()[0]
    details = [
        f"{N_CHUNKS} x {DIM} float32 chunks, {N_QUERIES} questions, top-{DEPTH}; load average {load:.2f}",
        f"threads: ours {our_threads}; faiss {faiss_run['threads']}, OpenMP {int(faiss_run['omp'])}",
        f"{ROUNDS} rounds, the sides taking turns; search step (batch + latency sample of up to {LATENCY_SAMPLE}) "
        f"best {min(ours):.3f} s, median {np.median(ours):.3f} s; faiss IndexFlatIP best {min(theirs):.3f} s, "
        f"median {np.median(theirs):.3f} s",
        f"ratio per round: {' '.join(f'{r:.2f}' for r in ratios)}; best/best {min(ours) / min(theirs):.3f}",
        f"one search per question (the code before; timed on {LOOP_SAMPLE} questions, scaled to {N_QUERIES}): "
        f"{loop_all:.1f} s = {loop_all / min(ours):.0f}x the batched step",
        f"vs faiss: ids identical at {same:.4%} of ranks, max |score gap| {gap:.2g}",
    ]
    checks = [
        Check(
            "32.2 dense batched",
            "search step / faiss IndexFlatIP time (median of rounds)",
            float(np.median(ratios)),
            "<=",
            1.2,
        ),
        Check("32.2 dense batched", "max |score - faiss score| at each rank", gap, "<=", 1e-5),
    ]
    report("Issue 32 goal 2: dense retrieval's search step, batched", checks, details)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--faiss-child":
        faiss_child()
    else:
        main()
