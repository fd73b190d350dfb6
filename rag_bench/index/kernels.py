"""Which BM25 search path runs: the numpy loop, or the compiled numba kernel where it pays.

Both give the same arrays bit for bit; only the time differs. Importing numba and loading
the kernel from its on-disk cache cost about half a second, and compiling it in a fresh
environment about 10 s, while the numpy loop answers 1,000 queries over 50,000 chunks in
about 0.3 s. So ``choose`` estimates the numpy loop's time from the postings the queries
touch and

- returns None (numpy) when that is under ``NUMBA_FROM_SECONDS``, without importing numba;
- returns the kernel module when numba is installed and the kernel is compiled (in memory,
  or in numba's cache on disk);
- compiles it, saying so on stderr, when the numpy loop would take over ``COMPILE_FROM_SECONDS``;
- otherwise returns None.

``python -m rag_bench.index.bm25_numba`` compiles the kernel into numba's cache ahead of time
(once per environment), in plain view. ``PATH`` forces one path ("numpy" or "numba"; tests and
benchmarks set it).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

# The numpy loop's cost model (benchmarks/perf/bench_bm25.py prints its error on 50k chunks), fitted on
# 1,000 queries over 5k-200k documents and 37M-250M postings (within 25%):
SECONDS_PER_QUERY = 20e-6
SECONDS_PER_DOC = 1.5e-9  # each query scans every document's sum once
SECONDS_PER_POSTING = 5e-9  # 34.8M postings, 1,000 queries over 50k documents: 0.27 s
NUMBA_FROM_SECONDS = 1.0  # below: numpy, numba is not even imported
COMPILE_FROM_SECONDS = 30.0  # above: compile the kernel if it is not compiled yet (~10 s, once)

PATH = "auto"  # "auto", "numpy" or "numba"
_loaded: list[ModuleType | None] = []  # the kernel module (or None when numba is unusable), once imported


def numpy_seconds(n_queries: int, postings: int, n_docs: int) -> float:
    """The numpy loop's estimated seconds: ``n_queries`` queries touching ``postings`` postings of ``n_docs`` docs."""
    return n_queries * (SECONDS_PER_QUERY + n_docs * SECONDS_PER_DOC) + postings * SECONDS_PER_POSTING


def choose(n_queries: int, postings: int, n_docs: int) -> ModuleType | None:
    """The numba kernel module when it should run this search, else None (the numpy loop)."""
    if PATH == "numpy":
        return None
    if PATH == "numba":
        return load()
    estimate = numpy_seconds(n_queries, postings, n_docs)
    if estimate < NUMBA_FROM_SECONDS:
        return None
    compiled = load()
    if compiled is None:
        return None
    if compiled.ready():
        return compiled
    if estimate >= COMPILE_FROM_SECONDS:
        print(
            f"rag-bench: compiling the BM25 query kernel (numba, once per environment; the numpy loop would take "
            f"~{estimate:.0f} s). `python -m rag_bench.index.bm25_numba` does this ahead of time.",
            file=sys.stderr,
        )
        compiled.compile_all()
        return compiled
    return None


def available() -> bool:
    """Whether numba is installed (without importing it)."""
    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError, AttributeError):  # e.g. sys.modules["numba"] = None
        return False


def load() -> ModuleType | None:
    """The kernel module ``bm25_numba``, imported once; None when numba is missing or unusable."""
    if not _loaded:
        module = None
        if available():
            try:
                from rag_bench.index import bm25_numba as module
            except (ImportError, RuntimeError):  # numba broken, or nowhere writable for its kernel cache
                module = None
        _loaded.append(module)
    return _loaded[0]
