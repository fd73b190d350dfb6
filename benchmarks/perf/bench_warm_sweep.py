"""Goal S4: a warm repeated 24-point sweep at least 20x faster than its cold run, with 0 texts embedded.

Runs the real command, ``python -m rag_bench sweep=grid24`` (3 chunk sizes x 2 overlaps x
bm25/hybrid x reranker none/maxsim, local MiniLM), once into a fresh cache (cold) and once more
with the same cache into a new sweep folder (warm), each in its own process, timed from launch to
exit (start-up, every point, the sweep report and plots). From each point's metrics.json it reads
``stats.embedded``, and it compares the two summary.csv tables: every metric column (means and
interval bounds) must be equal, so the warm run's speed cannot come from computing something else.

    python benchmarks/perf/bench_warm_sweep.py [--dataset kestrel-kb] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from common import Check, report

GOAL_RATIO, POINTS = 20.0, 24


def sweep(sweep_dir: Path, cache: Path, dataset: str) -> float:
    """Wall seconds of one ``rag-bench sweep=grid24`` process, launch to exit."""
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    command = [sys.executable, "-m", "rag_bench", "sweep=grid24", f"dataset={dataset}", f"hydra.sweep.dir={sweep_dir}"]
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def points(sweep_dir: Path) -> list[dict]:
    """Every point's metrics.json, in point order."""
    files = sorted(sweep_dir.glob("*/metrics.json"), key=lambda p: int(p.parent.name))
    return [json.loads(p.read_text()) for p in files]


def metric_columns(table: pd.DataFrame, names: list[str]) -> list[str]:
    """The summary columns that hold a metric mean or interval bound."""
    wanted = {f"{name}{end}" for name in names for end in ("", "_low", "_high")}
    return [c for c in table.columns if c in wanted]


def point_seconds(point: dict) -> float:
    """Seconds of a point's pipeline stages (the steps inside a stage, e.g. "bm25 build", not counted twice)."""
    seconds = point["stats"].get("seconds", {})
    return sum(v for k, v in seconds.items() if k.rsplit(" ", 1)[0] == k or k.rsplit(" ", 1)[0] not in seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="kestrel-kb")
    parser.add_argument("--keep", help="keep the cache and both sweeps in this folder (default: a temporary folder)")
    args, _ = parser.parse_known_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="rag-bench-warm-sweep-"))
    if args.keep and root.exists():
        shutil.rmtree(root)  # the cold run needs a fresh cache
    try:
        cache = root / "cache"
        cold_s = sweep(root / "cold", cache, args.dataset)
        warm_s = sweep(root / "warm", cache, args.dataset)
        cold, warm = points(root / "cold"), points(root / "warm")
        cold_table = pd.read_csv(root / "cold" / "summary.csv")
        warm_table = pd.read_csv(root / "warm" / "summary.csv")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    names = list(dict.fromkeys(n for p in cold for n in p["metrics"]))
    columns = metric_columns(cold_table, names)
    same = (
        len(columns) > 0
        and list(cold_table["point"]) == list(warm_table["point"])
        and cold_table[columns].equals(warm_table[columns])
    )
    differing = [c for c in columns if not cold_table[c].equals(warm_table[c])]
    cold_embedded, warm_embedded = (sum(p["stats"]["embedded"] for p in run) for run in (cold, warm))
    warm_points_s = sum(point_seconds(p) for p in warm)
    details = [
        f"`python -m rag_bench sweep=grid24 dataset={args.dataset}` (local MiniLM), cold into a fresh cache, "
        "then warm: same cache, new sweep folder",
        f"points: cold {len(cold)}, warm {len(warm)}; texts embedded: cold {cold_embedded}, warm {warm_embedded}",
        f"wall time, launch to exit: cold {cold_s:.1f} s, warm {warm_s:.2f} s, ratio {cold_s / warm_s:.1f}x",
        f"warm run: pipeline stages of the 24 points {warm_points_s:.2f} s in all; the rest is start-up, Hydra "
        "composing and launching the jobs, writing outputs, the sweep report and plots",
        f"summary.csv metric columns compared: {len(columns)}; equal: {same}"
        + (f" (differ: {', '.join(differing[:5])})" if differing else ""),
    ]
    checks = [
        Check("S4 warm sweep", "cold / warm wall time", cold_s / warm_s, ">=", GOAL_RATIO),
        Check("S4 warm sweep", "texts embedded by the warm run", float(warm_embedded), "<=", 0.0),
        Check("S4 warm sweep", "texts embedded by the cold run (a fresh cache)", float(cold_embedded), ">=", 1.0),
        Check("S4 warm sweep", "points in each run (the smaller)", float(min(len(cold), len(warm))), ">=", POINTS),
        Check("S4 warm sweep", "summary metric columns equal, cold vs warm (1 = yes)", float(same), ">=", 1.0),
    ]
    report("Goal S4: warm repeated 24-point sweep", checks, details)


if __name__ == "__main__":
    main()
