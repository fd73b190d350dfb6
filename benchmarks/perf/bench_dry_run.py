"""Issue 31 item 5: ``rag-bench sweep=grid24 --dry-run`` prints its plan in under 3 s on a warm machine.

Runs the real command in its own process, timed from launch to exit: into a fresh cache (cold: nothing
composed, chunked or embedded), again on that cache (composition cached, nothing else), then after the real
``rag-bench sweep=grid24`` has filled the cache (warm, best of ``--repeats``). The real sweep is the reference
measured in the same run: the warm plan's time is also given as a share of the cold sweep's. Also checked:
the cold plan's texts to embed at the points without a reranker are at least what those points of the real
sweep embedded (``stats.embedded``): equal but for the chunks that ``reranker=maxsim`` at an earlier point
embedded as sentences (the plan cannot know the candidates, so it counts them), and the warm plan has nothing
left to embed.

    python benchmarks/perf/bench_dry_run.py [--dataset kestrel-kb] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from common import Check, report

GOAL_S = 3.0
PLAN_LINE = re.compile(r"^plan (\d+) .*?: (.*)$")
TEXTS = re.compile(r"embedding \w+(?: \([^)]*\))? (\d+) texts")


def command(cache: Path, dataset: str, *extra: str) -> tuple[float, str]:
    """Wall seconds and stdout of one ``rag-bench sweep=grid24`` process."""
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    args = [sys.executable, "-m", "rag_bench", "sweep=grid24", f"dataset={dataset}", "quiet=true", *extra]
    start = time.perf_counter()
    done = subprocess.run(args, check=True, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done.stdout


def planned_texts(stdout: str) -> dict[int, int]:
    """Texts to embed per point of a plan's output."""
    out = {}
    for line in stdout.splitlines():
        found = PLAN_LINE.match(line)
        if found:
            out[int(found.group(1))] = sum(int(n) for n in TEXTS.findall(found.group(2)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="kestrel-kb")
    parser.add_argument("--repeats", type=int, default=3)
    args, _ = parser.parse_known_args()
    root = Path(tempfile.mkdtemp(prefix="rag-bench-dry-run-"))
    try:
        cache = root / "cache"
        cold_s, cold_out = command(cache, args.dataset, "--dry-run")
        composed_s, _ = command(cache, args.dataset, "--dry-run")
        sweep_s, _ = command(cache, args.dataset, f"hydra.sweep.dir={root / 'sweep'}")
        warm = [command(cache, args.dataset, "--dry-run") for _ in range(args.repeats)]
        points = {int(p.parent.name): json.loads(p.read_text()) for p in (root / "sweep").glob("*/metrics.json")}
        rerankers = {
            int(p.parent.name): yaml.safe_load(p.read_text())["reranker"]["name"]
            for p in (root / "sweep").glob("*/config.yaml")
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)
    warm_s = min(s for s, _ in warm)
    cold_plan, warm_plan = planned_texts(cold_out), planned_texts(warm[0][1])
    plain = [n for n in points if rerankers.get(n) == "none"]
    planned = sum(cold_plan.get(n, 0) for n in plain)
    embedded = sum(points[n]["stats"]["embedded"] for n in plain)
    details = [
        f"`python -m rag_bench sweep=grid24 dataset={args.dataset} --dry-run` (local MiniLM), launch to exit",
        f"cold (fresh cache): {cold_s:.2f} s; composition cached: {composed_s:.2f} s; warm (after the real sweep, "
        f"best of {args.repeats}): {warm_s:.2f} s",
        f"reference, the real sweep into the cold cache: {sweep_s:.1f} s; warm plan / sweep: {warm_s / sweep_s:.3f}",
        f"points planned: cold {len(cold_plan)}, warm {len(warm_plan)}; texts to embed, points without a reranker: "
        f"planned {planned}, embedded by the sweep {embedded}; warm plan: {sum(warm_plan.values())}",
    ]
    checks = [
        Check("dry run", "grid24 --dry-run on a warm cache, seconds", warm_s, "<", GOAL_S),
        Check("dry run", "grid24 --dry-run on a fresh cache, seconds", cold_s, "info", 0.0),
        Check("dry run", "points planned (warm)", float(len(warm_plan)), ">=", 24.0),
        Check("dry run", "embedded - planned texts, no-reranker points", float(embedded - planned), "<=", 0.0),
        Check("dry run", "planned - embedded (maxsim sentences first)", float(planned - embedded), "info", 0.0),
        Check("dry run", "texts the warm plan would embed", float(sum(warm_plan.values())), "<=", 0.0),
    ]
    report("Issue 31 item 5: a plan before spending", checks, details)


if __name__ == "__main__":
    main()
