"""Issue 32 goal 1: a whole rag-bench run against the plain script a user would write, same data, same vectors.

For each size (chunks x questions) a synthetic dataset (``synthetic_runs.py``) is written once; then, in
fresh processes with fresh caches, taking turns: ``rag-bench embedder=fake`` (hybrid: recursive 800-character
chunks, BM25 + exact dense search, RRF, every metric, every output file and report.html), the plain script
(``plain_pipeline.py``: recursive splitter, the same hashing vectors, bm25s, faiss IndexFlatIP, RRF in numpy,
pytrec_eval, run.trec and metrics.json) in hybrid mode, and both again with BM25 alone. Wall time of each
process, start-up and imports included on both sides. Goals: hybrid time / plain hybrid time <= 1.0 at every
size; plain BM25 time / rag-bench BM25 time >= 2.

Usage: python benchmarks/perf/bench_whole_run.py [--sizes 10000x1000,10000x10000,...] [--rounds 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import Check, compile_package, report
from plain_pipeline import embed
from synthetic_runs import write_dataset

from rag_bench.testing import FakeEmbedder

HERE = Path(__file__).resolve().parent
SIZES = "10000x1000,10000x10000,50000x1000,50000x10000,200000x1000,200000x10000"


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def ours(dataset: Path, work: Path, mode: str, tag: str) -> tuple[float, dict]:
    """Wall seconds of one cold ``rag-bench`` run and its metrics.json."""
    out = work / f"rb-{mode}-{tag}"
    env = {**os.environ, "RAG_BENCH_CACHE": str(work / f"cache-{mode}-{tag}"), "RAG_BENCH_QUIET": "1"}
    command = [sys.executable, "-m", "rag_bench", f"dataset.path={dataset}", "embedder=fake", f"hydra.run.dir={out}"]
    seconds = timed(command + ([] if mode == "hybrid" else ["retrieval=bm25"]), env)
    return seconds, json.loads((out / "metrics.json").read_text())


def plain(dataset: Path, work: Path, mode: str, tag: str) -> tuple[float, dict]:
    out = work / f"plain-{mode}-{tag}"
    seconds = timed([sys.executable, str(HERE / "plain_pipeline.py"), str(dataset), str(out), mode], dict(os.environ))
    return seconds, json.loads((out / "metrics.json").read_text())


def stage_line(metrics: dict, wall: float) -> str:
    """The run's stage seconds (its own ``stats.seconds``) and the rest of its wall time: start-up, imports, Hydra's
    composition, the outputs (written after the stats) and the orchestration between stages."""
    seconds = metrics["stats"]["seconds"]
    stages = {k: v for k, v in seconds.items() if " " not in k}  # "dense embed" and the like are parts of "dense"
    parts = ", ".join(
        f"{k} {v:.2f}"
        + "".join(f" ({s} {seconds[f'{k} {s}']:.2f})" for s in ("embed", "search") if f"{k} {s}" in seconds)
        for k, v in stages.items()
    )
    rest = wall - sum(stages.values())
    return f"stages (s): {parts}; the rest (start-up, composition, outputs) {rest:.2f} of {wall:.2f} s (last round)"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default=SIZES)
    parser.add_argument("--rounds", type=int, default=1)
    args, _ = parser.parse_known_args()
    checks, details = [], [compile_package()]
    sample = ["The ingest certificate expired at noon.", "INC-2023-Q4-011, v1.2.3 & ERR_4021?", ""]
    same = np.array_equal(embed(sample), FakeEmbedder(64).embed(sample))
    checks.append(Check("32.1 whole run", "plain script's vectors = embedder=fake's (1 = yes)", float(same), ">=", 1))
    for size in args.sizes.split(","):
        n_chunks, n_questions = (int(x) for x in size.split("x"))
        with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
            work = Path(tmp)
            dataset = write_dataset(work / "data", n_chunks, n_questions)
            best: dict[str, float] = {}
            last: dict[str, float] = {}
            loads, found = [os.getloadavg()[0]], {}
            for r in range(args.rounds):
                for name, fn, mode in (
                    ("ours hybrid", ours, "hybrid"),
                    ("plain hybrid", plain, "hybrid"),
                    ("ours bm25", ours, "bm25"),
                    ("plain bm25", plain, "bm25"),
                ):
                    seconds, found[name] = fn(dataset, work, mode, str(r))
                    best[name] = min(best.get(name, float("inf")), seconds)
                    last[name] = seconds
                    loads.append(os.getloadavg()[0])
        label = f"{n_chunks // 1000}k x {n_questions // 1000}k"
        details.append(f"{label}: rag-bench hybrid, {stage_line(found['ours hybrid'], last['ours hybrid'])}")
        recall = {k: v["metrics"].get("recall@10", v["metrics"].get("recall_10")) for k, v in found.items()}
        chunks = (found["ours hybrid"]["stats"]["chunks"], found["plain hybrid"]["chunks"])
        details.append(
            f"{label}: rag-bench hybrid {best['ours hybrid']:.1f} s, plain {best['plain hybrid']:.1f} s; rag-bench "
            f"BM25 {best['ours bm25']:.1f} s, plain {best['plain bm25']:.1f} s; chunks {chunks[0]} vs "
            f"{chunks[1]}; recall@10 "
            + ", ".join(f"{k} {v:.3f}" for k, v in recall.items())
            + f"; load average {' -> '.join(f'{x:.1f}' for x in loads)}"
        )
        checks.append(
            Check(
                "32.1 whole run",
                f"hybrid / plain script, {label}",
                best["ours hybrid"] / best["plain hybrid"],
                "<=",
                1.0,
            )
        )
        checks.append(
            Check(
                "32.1 whole run",
                f"plain BM25 script / BM25 run, {label}",
                best["plain bm25"] / best["ours bm25"],
                ">=",
                2.0,
            )
        )
    report("Issue 32 goal 1: whole runs against the plain script (hashing vectors, cold caches)", checks, details)


if __name__ == "__main__":
    main()
