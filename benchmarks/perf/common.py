"""Shared pieces of the performance benchmarks: timing, single-threading, synthetic data, checks.

Every goal is a ratio of two timings taken side by side in one process (best of a few
repeats, interleaved), so a noisy shared machine moves both sides alike.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits


@dataclass(frozen=True)
class Check:
    """One measured goal: ``value`` compared with ``target`` by ``op`` (">=", "<=", "<"; "info": reported only)."""

    goal: str
    measure: str
    value: float
    op: str
    target: float
    note: str = ""

    @property
    def passed(self) -> bool:
        ops = {">=": self.value >= self.target, "<=": self.value <= self.target, "<": self.value < self.target}
        return ops.get(self.op, True)

    def line(self) -> str:
        if self.op == "info":
            return f"INFO  [{self.goal}] {self.measure}: {self.value:.4g} {self.note}".rstrip()
        verdict = "PASS" if self.passed else "FAIL"
        goal = f"(goal {self.op} {self.target:g})"
        return f"{verdict}  [{self.goal}] {self.measure}: {self.value:.4g} {goal} {self.note}".rstrip()


def best_of(fn: Callable[[], object], repeats: int) -> float:
    """The fastest of ``repeats`` wall-clock runs of ``fn``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def interleaved(fns: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Best-of-``repeats`` seconds of each function, the functions taking turns round by round."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeats):
        for name, fn in fns.items():
            best[name] = min(best[name], best_of(fn, 1))
    return best


@contextmanager
def single_thread() -> Iterator[None]:
    """BLAS, OpenMP (faiss) and numba limited to one thread."""
    with threadpool_limits(1):
        if "numba" in sys.modules:
            import numba

            numba.set_num_threads(1)
        yield


def blas_kernels() -> str:
    """Which BLAS libraries are loaded and which kernel each runs (threadpoolctl)."""
    parts = []
    for info in threadpool_info():
        if info["user_api"] == "blas":
            name = os.path.basename(info["filepath"]).split("-")[0]
            parts.append(f"{name} {info.get('version')} {info.get('architecture', '?')}")
    return "; ".join(parts) or "no BLAS loaded"


def peak_rss_bytes() -> int:
    """This process's peak resident set size (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def compile_package() -> str:
    """Write the bytecode of rag_bench's modules before timing whole processes, as a pip install does for the
    libraries the other side imports: where PYTHONDONTWRITEBYTECODE is set, an edited checkout otherwise
    compiles each changed module in every process (30-50 ms a run). Returns a line for the report."""
    import compileall
    from pathlib import Path

    import rag_bench

    ok = compileall.compile_dir(Path(rag_bench.__file__).parent, quiet=1)
    return f"rag_bench's bytecode written before timing (compileall: {'ok' if ok else 'FAILED'})"


def machine() -> str:
    """One line naming the CPU, cores, memory and library versions."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            cpu = next(line.split(":", 1)[1].strip() for line in handle if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{cpu}, {os.cpu_count()} cores, {memory:.0f} GiB, Python {platform.python_version()}, numpy {np.__version__}"
    )


def unit_vectors(n: int, dim: int, seed: int) -> np.ndarray:
    """(n, dim) float32 rows of unit length, normally distributed directions."""
    x = np.random.default_rng(seed).standard_normal((n, dim), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


SYLLABLES = ["ka", "ro", "mi", "ten", "vu", "sal", "de", "in", "or", "pla", "nu", "gex", "ti", "bo", "ar", "len"]


def pseudo_word(i: int) -> str:
    """A letters-only word for term rank ``i`` (distinct for distinct i): 0 -> 'ka', 17 -> 'roka'."""
    out = []
    while True:
        out.append(SYLLABLES[i % len(SYLLABLES)])
        i //= len(SYLLABLES)
        if i == 0:
            return "".join(out)
        i -= 1


def zipf_corpus(n_docs: int, seed: int, vocab: int = 60_000, mean_len: int = 120) -> list[list[str]]:
    """Tokenized documents with Zipfian term frequencies (p(rank r) ~ 1/(r + 10)) and varied lengths."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / (np.arange(vocab) + 10.0)
    cdf = np.cumsum(weights / weights.sum())
    lengths = np.clip(rng.normal(mean_len, mean_len / 3, n_docs).astype(np.int64), 5, 4 * mean_len)
    term_ids = np.minimum(np.searchsorted(cdf, rng.random(int(lengths.sum()))), vocab - 1)
    words = [f"w{i}" for i in range(vocab)]
    ends = np.cumsum(lengths)
    flat = [words[t] for t in term_ids.tolist()]
    return [flat[end - size : end] for end, size in zip(ends.tolist(), lengths.tolist(), strict=True)]


def queries_from(docs: list[list[str]], n: int, seed: int, terms: int = 6) -> list[list[str]]:
    """Queries of ``terms`` terms drawn from random documents, as a user's words come from a passage."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(docs), n)
    return [[docs[d][i] for i in rng.integers(0, len(docs[d]), terms)] for d in picks.tolist()]


def report(title: str, checks: list[Check], details: list[str]) -> None:
    """Print the details and checks; with ``--json PATH`` also write the checks there for run_all."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", default=None)
    args, _ = parser.parse_known_args()
    print(f"== {title}")
    for line in details:
        print(f"   {line}")
    for check in checks:
        print(f"   {check.line()}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump([asdict(c) for c in checks], handle)
