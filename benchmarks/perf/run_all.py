"""Run every performance benchmark, each in a fresh process, and print every ratio with PASS/FAIL.

Usage: python benchmarks/perf/run_all.py [--only bm25,dense,...] [--args NAME="ARGS" ...]
``--args`` passes options through to one benchmark, e.g.
``--args whole-run="--sizes 10000x1000,10000x10000 --rounds 2"`` (repeat it for several benchmarks).
Exit status 1 when any goal fails; goals with no benchmark yet are listed as not measured. Each check in
the closing summary carries the machine's load average when its benchmark ended (1-minute, os.getloadavg).
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed from the benchmarks' environment (this
command only), so numpy's OpenBLAS picks its own kernel for this CPU; the kernel each side
runs is printed (threadpoolctl).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Check, machine

HERE = Path(__file__).resolve().parent
SCRIPTS = {
    "bm25": "bench_bm25.py",
    "dense": "bench_dense.py",
    "metrics": "bench_metrics.py",
    "fusion": "bench_fusion.py",
    "memory": "bench_memory.py",
    "scaling": "bench_scaling.py",
    "hnsw": "bench_hnsw.py",
    # "Speed where the user waits" goals, S1-S5
    "bm25-cli": "bench_bm25_cli.py",
    "embed": "bench_embed.py",
    "chunkers": "bench_chunkers.py",
    "warm-sweep": "bench_warm_sweep.py",
    "vectordb": "bench_vectordb.py",
    "explorer": "../run_page_tti.py",
    "strategies": "bench_strategies.py",  # S6: each retrieval strategy's share of the retrieval stage
    "parse": "bench_parse.py",  # the parse stage against its libraries, and reuse across a parser sweep
    "analyzers": "bench_analyzers.py",  # issue 34: analysis throughput per language analyzer
    # issue 30: API embedding keeps the pipe full (fake servers in child processes)
    "api-embed": "bench_api_embed.py",
    "api-rerank": "bench_api_rerank.py",  # issue 32 goal 4: the API rerankers, as api-embed measures the embedders
    # issue 32: speed where the user waits, round two (goal 4 is api-embed and api-rerank above)
    "whole-run": "bench_whole_run.py",  # goal 1: whole runs against a plain script
    "dense-batched": "bench_dense_batched.py",  # goal 2: the retriever's batched search against faiss
    "embed-overhead": "bench_embed_overhead.py",  # goal 3: the embedding stage's bookkeeping
    "after-retrieval": "bench_after_retrieval.py",  # goal 5: scoring and outputs at 10k questions
    "default-cold": "bench_default_cold.py",  # goal 6: the default cold run against its embedding
    "dry-run": "bench_dry_run.py",  # issue 31 item 5: grid24's plan in under 3 s on a warm machine
    "write": "bench_write.py",  # large files in 1 MiB write calls against one call (reported, not a goal)
}
ARGS = {"explorer": ["--repeats", "2"]}  # the eager reference page takes about a minute per load
if os.environ.get("BENCH_REFERENCE"):  # a checkout of the code before (its C extension built): goal 32.5's reference
    ARGS["after-retrieval"] = ["--reference", os.environ["BENCH_REFERENCE"]]
    ARGS["embed-overhead"] = ["--reference", os.environ["BENCH_REFERENCE"]]  # printed beside, not a goal
NOT_MEASURED: list[str] = []  # goals with no benchmark yet


def missing(name: str) -> str | None:
    """Why benchmark ``name`` cannot run here (a line for the summary), or None when it can."""
    if name == "explorer" and not (os.environ.get("RAG_BENCH_CHROMIUM") or shutil.which("chromium")):
        return "[S5 explorer] report.html with 10,000 questions under 2 s in Chromium: not measured: chromium missing"
    return None


def run(name: str, env: dict[str, str]) -> list[Check]:
    """Run one benchmark script (its output goes straight through) and read back its checks."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "checks.json"
        command = [sys.executable, str(HERE / SCRIPTS[name]), "--json", str(out), *ARGS.get(name, [])]
        done = subprocess.run(command, env=env)
        load = f"(load average {os.getloadavg()[0]:.2f} as it ended)"  # every ratio is read with the load beside it
        if done.returncode != 0 or not out.exists():
            return [Check(name, "benchmark ran (exit status)", float(done.returncode), "<=", 0.0, load)]
        return [Check(**{**c, "note": f"{c.get('note', '')} {load}".strip()}) for c in json.loads(out.read_text())]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SCRIPTS), help="comma-separated subset of: " + ", ".join(SCRIPTS))
    parser.add_argument("--args", action="append", default=[], metavar='NAME="ARGS"', help="options of one benchmark")
    args = parser.parse_args()
    names = args.only.split(",")
    for given in args.args:
        name, sep, options = given.partition("=")
        if not sep or name not in SCRIPTS:
            parser.error(f'--args {given!r}: expected NAME="OPTIONS" with NAME one of {", ".join(SCRIPTS)}')
        ARGS[name] = [*ARGS.get(name, []), *shlex.split(options)]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    print(f"machine: {machine()}")
    coretype = os.environ.get("OPENBLAS_CORETYPE", "(unset)")
    print(f"environment: OPENBLAS_CORETYPE={coretype} here, unset for the benchmarks")
    start = time.perf_counter()
    skipped = [line for name in names if (line := missing(name)) is not None]
    checks = [check for name in names if missing(name) is None for check in run(name, env)]
    print(f"\n== Summary ({time.perf_counter() - start:.0f} s)")
    for check in checks:
        print(f"   {check.line()}")
    for line in NOT_MEASURED + skipped:
        print(f"   ----  {line}")
    failed = [c for c in checks if not c.passed]
    print(f"   {len(checks) - len(failed)} of {len(checks)} checks pass" + (f"; {len(failed)} FAIL" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
