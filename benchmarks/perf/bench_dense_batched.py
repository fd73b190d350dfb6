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

import contextlib
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
DEFAULT_ROUNDS = 3  # rounds with each side at its default thread counts (reported, no goal)
LOOP_SAMPLE = 500  # questions the old one-at-a-time loop is timed on


def data() -> tuple[np.ndarray, np.ndarray]:
    return unit_vectors(N_CHUNKS, DIM, seed=13), unit_vectors(N_QUERIES, DIM, seed=14)


def faiss_child() -> None:
    """Serve timings of faiss's search: one search per line read from stdin ("one": one thread; "all": faiss's
    own default threads, as a user who sets nothing runs it), its seconds written back; at end of input, the
    last rankings and the thread counts go to the file named on the command line."""
    import faiss

    docs, queries = data()
    default_omp = faiss.omp_get_max_threads()
    index = faiss.IndexFlatIP(DIM)
    index.add(docs)
    threads = {}
    for line in sys.stdin:
        mode = line.strip()
        faiss.omp_set_num_threads(1 if mode == "one" else default_omp)
        with single_thread() if mode == "one" else contextlib.nullcontext():
            threads[mode] = f"{blas_threads()}, OpenMP {faiss.omp_get_max_threads()}"
            start = time.perf_counter()
            scores, ids = index.search(queries, DEPTH)
            print(time.perf_counter() - start, flush=True)
    np.savez(sys.argv[2], ids=ids, scores=scores, one=threads["one"], all=threads["all"])


def blas_threads() -> str:
    """Each BLAS/OpenMP library loaded here with its thread count (threadpoolctl)."""
    return "; ".join(f"{i['internal_api']} {i['num_threads']}" for i in threadpool_info())


def main() -> None:
    docs, queries = data()
    index, filters = DenseIndex(docs), [None] * N_QUERIES

    def step() -> tuple[float, float]:  # the retriever's search step: one batch, then the sample within its budget
        start = time.perf_counter()
        index.search(queries, DEPTH, filters)
        batch = time.perf_counter() - start
        sampled_latency(index, queries, DEPTH, filters, budget_s=max(0.05, LATENCY_BUDGET * batch))
        return batch, time.perf_counter() - start

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

        def faiss_time(mode: str) -> float:
            child.stdin.write(f"{mode}\n".encode())
            child.stdin.flush()
            return float(child.stdout.readline())

        rounds: list[tuple[float, float, float]] = []  # (faiss, our batch, our step) seconds, one thread each
        default_rounds: list[tuple[float, float]] = []  # (faiss, our batch), each side at its default threads
        try:
            with single_thread():
                our_threads = blas_threads()
                for i in range(ROUNDS + 1):  # round 0 warms both sides up (first touch of pages, faiss's buffers)
                    theirs = faiss_time("one")
                    batch, whole = step()
                    rounds += [(theirs, batch, whole)] if i else []
            for i in range(DEFAULT_ROUNDS + 1):
                theirs = faiss_time("all")
                start = time.perf_counter()
                index.search(queries, DEPTH, filters)
                default_rounds += [(theirs, time.perf_counter() - start)] if i else []
            default_threads = blas_threads()
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
    theirs, batch, whole = (np.array(column) for column in zip(*rounds, strict=True))  # (ROUNDS,) each
    step_ratio, batch_ratio = np.median(whole / theirs), np.median(batch / theirs)
    default_ratio = np.median([ours / faiss for faiss, ours in default_rounds])
    same = float((idx == faiss_run["ids"]).mean())
    gap = float(np.abs(scores - faiss_run["scores"]).max())
    load = os.getloadavg()[0]
    details = [
        f"{N_CHUNKS} x {DIM} float32 chunks, {N_QUERIES} questions, top-{DEPTH}; load average {load:.2f}",
        f"threads: ours {our_threads}; faiss {faiss_run['one']}",
        f"{ROUNDS} rounds after one warm-up, the sides taking turns; search step (batch + latency sample of up to "
        f"{LATENCY_SAMPLE}) best {whole.min():.3f} s, median {np.median(whole):.3f} s (the batch alone: best "
        f"{batch.min():.3f} s, median {np.median(batch):.3f} s); faiss IndexFlatIP best {theirs.min():.3f} s, "
        f"median {np.median(theirs):.3f} s",
        f"ratio per round, step: {' '.join(f'{r:.2f}' for r in whole / theirs)}; batch alone: "
        f"{' '.join(f'{r:.2f}' for r in batch / theirs)}; best/best {whole.min() / theirs.min():.3f}",
        f"each side at its default threads ({DEFAULT_ROUNDS} rounds after a warm-up; ours {default_threads}; "
        f"faiss {faiss_run['all']}): batch / faiss "
        f"{' '.join(f'{ours / faiss:.2f}' for faiss, ours in default_rounds)}",
        f"one search per question (the code before; timed on {LOOP_SAMPLE} questions, scaled to {N_QUERIES}): "
        f"{loop_all:.1f} s = {loop_all / whole.min():.0f}x the batched step",
        f"vs faiss: ids identical at {same:.4%} of ranks, max |score gap| {gap:.2g}",
    ]
    goal = "32.2 dense batched"
    checks = [
        Check(goal, "search step / faiss IndexFlatIP time, one thread each (median of rounds)", step_ratio, "<=", 1.2),
        Check(goal, "batch alone / faiss IndexFlatIP time, one thread each (median of rounds)", batch_ratio, "info", 0),
        Check(goal, "batch / faiss IndexFlatIP time, default threads each (median)", default_ratio, "info", 0),
        Check(goal, "max |score - faiss score| at each rank", gap, "<=", 1e-5),
    ]
    report("Issue 32 goal 2: dense retrieval's search step, batched", checks, details)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--faiss-child":
        faiss_child()
    else:
        main()
