"""The 24-point grid on each engine (basic launcher, SLURM, Ray), two jobs at a time, each into a fresh cache.

Usage: python benchmarks/cluster_sweep.py [--dataset kestrel-kb] [--engines basic,slurm,ray] [--keep DIR]

Runs `rag-bench sweep=grid24` (3 chunk sizes x 2 overlaps x bm25/hybrid x none/maxsim, the local
MiniLM embedder) with the basic launcher (one process, the reference), then on a one-node SLURM
cluster (submitit, 1 CPU per job on this 2-CPU machine, so 2 jobs run at once) and on a local Ray
cluster (1 CPU per task). SLURM and Ray are started by tests/cluster/daemons.py (needs root and
Debian's slurm-wlm, slurmdbd, munge, mariadb-server; `bash .ci/cluster --install-only`); the
clusters' start-up is not counted in the wall time. For each engine it reports:
  - wall time of the sweep, and its ratio to the basic launcher's, measured in the same run;
  - texts embedded (sum of stats.embedded over the points) against the texts in the cache, counted
    over every vector batch with duplicates (equal only if no text was embedded twice);
  - the most points running at one moment, and whether summary.csv equals the basic launcher's
    (every column but seconds, embedded and cache hits).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

import pandas as pd

from rag_bench.core.cache import DiskCache
from rag_bench.embed.store import stored_keys

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "cluster"))
from daemons import RayCluster, SlurmCluster  # noqa: E402

LAUNCHERS = {
    "basic": [],
    "slurm": ["hydra/launcher=submitit_slurm", "hydra.launcher.cpus_per_task=1", "hydra.launcher.mem_gb=2",
              "hydra.launcher.timeout_min=30"],
    "ray": ["hydra/launcher=ray", "hydra.launcher.ray.remote.num_cpus=1"],
}  # fmt: skip
RUN_SPECIFIC = ["seconds", "embedded", "cache_hits"]


def cluster(engine: str, folder: Path):
    if engine == "slurm":
        return SlurmCluster(folder / "slurm", cpus=2)
    if engine == "ray":
        return RayCluster(folder / "ray", cpus=2)
    return nullcontext()


def measure(engine: str, root: Path, dataset: str) -> dict:
    folder = root / engine
    folder.mkdir(parents=True)
    with cluster(engine, folder) as running:
        env = {**os.environ, **(running.env if running else {}), "RAG_BENCH_CACHE": str(folder / "cache")}
        argv = [sys.executable, "-m", "rag_bench", "sweep=grid24", f"dataset={dataset}", *LAUNCHERS[engine]]
        start = time.perf_counter()
        done = subprocess.run([*argv, "hydra.sweep.dir=sweep"], cwd=folder, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{engine}: sweep failed: {done.stderr[-2000:]}")
    sweep = folder / "sweep"
    points = [json.loads(p.read_text()) for p in sweep.glob("*/metrics.json")]
    keys = stored_keys(DiskCache(folder / "cache"))
    spans = [((p / ".hydra").stat().st_mtime, (p / "metrics.json").stat().st_mtime) for p in sweep.glob("[0-9]*")]
    return {
        "engine": engine,
        "points": len(points),
        "wall_s": wall,
        "embedded": sum(p["stats"]["embedded"] for p in points),
        "cached_vectors": len(keys),
        "distinct_texts": len(set(keys)),
        "most_at_once": max(sum(s <= t < e for s, e in spans) for t, _ in spans),
        "summary": str(sweep / "summary.csv"),
    }


def same_table(a: str, b: str) -> bool:
    def load(path: str) -> pd.DataFrame:
        return pd.read_csv(path).drop(columns=RUN_SPECIFIC).sort_values("point").reset_index(drop=True)

    return load(a).equals(load(b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="kestrel-kb")
    parser.add_argument("--engines", default="basic,slurm,ray")
    parser.add_argument("--keep", help="folder to keep the sweeps in (default: a temporary folder)")
    args = parser.parse_args()
    root = Path(args.keep or tempfile.mkdtemp(prefix="rag-bench-engines-"))
    results = [measure(engine, root, args.dataset) for engine in args.engines.split(",")]
    basic = next((r for r in results if r["engine"] == "basic"), None)
    print(f"24-point grid on {args.dataset}, local MiniLM, fresh cache per engine; sweeps in {root}")
    print("engine  points  wall s  vs basic  embedded  cached (distinct)  most at once  summary = basic's")
    for r in results:
        ratio = f"{r['wall_s'] / basic['wall_s']:.2f}x" if basic else "-"
        same = same_table(r["summary"], basic["summary"]) if basic else "-"
        print(
            f"{r['engine']:<6}  {r['points']:>6}  {r['wall_s']:>6.1f}  {ratio:>8}  {r['embedded']:>8}  "
            f"{r['cached_vectors']:>6} ({r['distinct_texts']})  {r['most_at_once']:>12}  {same}"
        )
    (root / "results.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
