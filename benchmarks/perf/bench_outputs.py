"""Issue 32 goals 1 and 5, the outputs alone: a run's files (``write_outputs``) and the copy kept for reuse.

A hybrid run (``embedder=fake``) of the synthetic dataset of 10,000 chunks (``synthetic_runs.py``) with
``--questions`` questions is computed in a fresh child process, then ``write_outputs`` (explanation and failure
classes, report.html, per_question.csv/.parquet, run.trec, metrics.json) and ``reuse.keep`` (the files kept in
the cache) are timed, wall and CPU seconds. ``--reference CHECKOUT`` (a checkout of the code before, its C
extensions built; ``git worktree add /tmp/base 2c03eb6``) runs the same in child processes of its own
(``PYTHONPATH``), the sides taking turns for ``--rounds`` rounds. Goal: this code's outputs + keep at most
half the reference's (median of rounds). Every file both sides wrote is compared byte for byte (metrics.json
but the seconds and latencies it records, and the ``code`` version).

Usage: python benchmarks/perf/bench_outputs.py --reference CHECKOUT [--questions 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Check, report
from synthetic_runs import write_dataset

# what differs between two runs of the same configuration (timings) and between two checkouts (``code``)
UNCOMPARED = ("seconds", "latency_ms_p50", "latency_ms_p95", "latency_sample", "build_seconds", "code")


def measure(work: Path, dataset: Path, out: Path) -> dict:
    """Seconds (wall and CPU) of ``write_outputs`` and of ``reuse.keep`` after one hybrid run of ``dataset``, into
    ``out``; the cache in ``work/cache`` (the same path for both sides, so that config.yaml is the same)."""
    from rag_bench.core.cache import DiskCache
    from rag_bench.entry.evaluate import compose_config
    from rag_bench.pipeline.run import run
    from rag_bench.report.run.outputs import write_outputs
    from rag_bench.run_folder import reuse

    overrides = [f"dataset.path={dataset}", "embedder=fake", f"cache_dir={work / 'cache'}", "quiet=true"]
    result = run(compose_config(overrides))
    start, start_cpu = time.perf_counter(), time.process_time()
    _, written = write_outputs(result, out)
    middle, middle_cpu = time.perf_counter(), time.process_time()
    reuse.keep(DiskCache(work / "kept"), "0" * 64, written)
    end, end_cpu = time.perf_counter(), time.process_time()
    seconds = {"outputs": middle - start, "keep": end - middle, "outputs_cpu": middle_cpu - start_cpu}
    return seconds | {"cpu": end_cpu - start_cpu, "load": os.getloadavg()[0]}


def child(work: Path, out: Path, checkout: str | None) -> dict:
    """``measure`` in a fresh child process, with a fresh cache: of the code in ``checkout``, or of this code (None)."""
    shutil.rmtree(work / "cache", ignore_errors=True)
    shutil.rmtree(work / "kept", ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": checkout} if checkout else dict(os.environ)
    command = [sys.executable, __file__, "--child", "--work", str(work), "--out", str(out)]
    done = subprocess.run(command, env=env, cwd=checkout, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def differing(ours: Path, theirs: Path) -> list[str]:
    """The files of two run folders that differ (metrics.json: the fields that differ, but ``UNCOMPARED``)."""
    names = sorted({p.name for p in ours.iterdir()} | {p.name for p in theirs.iterdir()})
    found = []
    for name in names:
        a, b = ours / name, theirs / name
        if not (a.is_file() and b.is_file()):
            found.append(name)
        elif name == "metrics.json":
            found += [f"metrics.json {key}" for key in _fields(json.loads(a.read_text()), json.loads(b.read_text()))]
        elif a.read_bytes() != b.read_bytes():
            found.append(name)
    return found


def _fields(a: object, b: object, at: str = "") -> list[str]:
    """The paths at which two JSON values differ, leaving out ``UNCOMPARED``."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = [k for k in {**a, **b} if k not in UNCOMPARED]
        return [f for k in keys for f in _fields(a.get(k), b.get(k), f"{at}.{k}")]
    return [] if a == b else [at]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--reference", default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true")  # print one measurement as JSON (``child``)
    parser.add_argument("--out", default=None)
    parser.add_argument("--work", default=None)
    args = parser.parse_known_args()[0]
    if args.child:
        print(json.dumps(measure(Path(args.work), Path(args.work) / "data", Path(args.out))))
        return
    if not args.reference:
        parser.error("--reference CHECKOUT is required: the goal is a ratio to the code before")
    sides = {"this code": None, "reference": args.reference}
    rows: dict[str, list[dict]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        write_dataset(Path(tmp) / "data", 10_000, args.questions)
        for turn in range(max(1, args.rounds)):
            for side in list(sides) if turn % 2 == 0 else list(sides)[::-1]:
                rows[side].append(child(Path(tmp), Path(tmp) / side.replace(" ", "-"), sides[side]))
        changed = differing(Path(tmp) / "this-code", Path(tmp) / "reference")
    details = []
    median = {}
    for side, found in rows.items():
        totals = [r["outputs"] + r["keep"] for r in found]
        median[side] = statistics.median(totals)
        details.append(
            f"{side}: outputs + keep per round "
            + ", ".join(
                f"{r['outputs']:.2f} + {r['keep']:.2f} s (CPU {r['cpu']:.2f} s, load {r['load']:.2f})" for r in found
            )
            + f"; median {median[side]:.2f} s"
        )
    details.append(f"files that differ between the sides: {', '.join(changed) or 'none'}")
    cpu = [statistics.median(r["cpu"] for r in rows[side]) for side in sides]
    note = f"(10k chunks x {args.questions} questions, hybrid; the code in {args.reference}, median of {args.rounds})"
    checks = [
        Check(
            "32.5 outputs", "write_outputs + keep / before", median["this code"] / median["reference"], "<=", 0.5, note
        ),
        Check("32.5 outputs", "CPU seconds / before", cpu[0] / cpu[1], "info", 0),
        Check("32.5 outputs", "files that differ", len(changed), "<=", 0),
    ]
    report("Issue 32 goals 1 and 5: a run's outputs", checks, details)


if __name__ == "__main__":
    main()
