"""A run's fixed costs, this checkout against another (``--reference``, a checkout with its C extensions built).

Cold runs (a fresh process and a fresh cache each), the two checkouts taking turns, each side's order
alternating by round: wall time, CPU seconds (user + system, which a loaded machine inflates less than wall
time), and "the rest": wall time less the stages' own seconds (``stats.seconds``), i.e. start-up, imports,
Hydra's composition, set-up, the outputs and the exit. Medians, and the load average through the run.
Extra arguments are the run's overrides (default: the bundled dataset with ``embedder=fake``).

Usage: python benchmarks/perf/bench_setup.py --reference /tmp/base [--rounds 8] [OVERRIDES...]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def one(root: Path, overrides: list[str]) -> tuple[float, float, float]:
    """(wall, CPU, the rest) of one cold run of the checkout at ``root``."""
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        env = {**os.environ, "PYTHONPATH": str(root), "RAG_BENCH_CACHE": f"{tmp}/cache", "RAG_BENCH_QUIET": "1"}
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        command = [sys.executable, "-m", "rag_bench", *overrides, f"hydra.run.dir={tmp}/out"]
        subprocess.run(command, env=env, cwd=tmp, check=True, capture_output=True)  # cwd: no checkout on sys.path[0]
        wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds = json.loads(Path(tmp, "out", "metrics.json").read_text())["stats"]["seconds"]
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, wall - sum(v for k, v in seconds.items() if " " not in k)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=8)
    args, overrides = parser.parse_known_args()
    sides = {"reference": args.reference.resolve(), "this checkout": HERE.parents[1]}
    for root in sides.values():  # bytecode written first, as a pip install does (common.compile_package)
        compileall.compile_dir(root / "rag_bench", quiet=1)
    found: dict[str, list[tuple[float, float, float]]] = {name: [] for name in sides}
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        for name in list(sides) if r % 2 == 0 else list(sides)[::-1]:
            found[name].append(one(sides[name], overrides or ["embedder=fake"]))
            loads.append(os.getloadavg()[0])
    for name, rows in found.items():
        wall, cpu, rest = (statistics.median(row[i] for row in rows) for i in range(3))
        print(f"   {name:14s} median of {len(rows)}: wall {wall:.3f} s, CPU {cpu:.3f} s, the rest {rest:.3f} s")
    print(f"   load average {' -> '.join(f'{x:.1f}' for x in loads)}")


if __name__ == "__main__":
    main()
