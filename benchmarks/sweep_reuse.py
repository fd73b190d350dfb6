"""The 24-point sweep twice: work reuse proven from the cache, and the warm/cold speed ratio.

Usage: python benchmarks/sweep_reuse.py [--dataset kestrel-kb] [--keep DIR]

Runs `rag-bench sweep=grid24` (3 chunk sizes x 2 overlaps x bm25/hybrid x none/maxsim) into a
fresh cache, then again into a new sweep folder with the cache warm, and reports:
  - texts embedded per point and in all (stats.embedded, every stage), and the proof that no text
    was embedded twice: every vector batch in the cache lists its texts' hashes, so the number of
    hashes over all batches equals the number of distinct hashes only if each text was sent once,
    and both equal the sum of stats.embedded;
  - that every chunk text of every hybrid point and every question is in the cache;
  - the second run's embedded count (goal 0) and the ratio first/second wall time (goal >= 10).
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

from rag_bench.core.cache import DiskCache
from rag_bench.embed.store import stored_keys, text_key


def sweep(sweep_dir: Path, cache: Path, dataset: str) -> float:
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "rag_bench", "sweep=grid24", f"dataset={dataset}", f"hydra.sweep.dir={sweep_dir}"],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def points(sweep_dir: Path) -> list[dict]:
    return [
        json.loads(p.read_text()) for p in sorted(sweep_dir.glob("*/metrics.json"), key=lambda p: int(p.parent.name))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="kestrel-kb")
    parser.add_argument("--keep", help="folder to keep the sweeps in (default: a temporary folder)")
    args = parser.parse_args()
    root = Path(args.keep or tempfile.mkdtemp(prefix="rag-bench-sweep-"))
    cache = root / "cache"
    os.environ["RAG_BENCH_CACHE"] = str(cache)  # chunk_texts reads the same cache
    first = sweep(root / "first", cache, args.dataset)
    keys = stored_keys(DiskCache(cache))
    total, distinct = len(keys), set(keys)
    second = sweep(root / "second", cache, args.dataset)
    one, two = points(root / "first"), points(root / "second")
    print(f"points: {len(one)} first run, {len(two)} second run")
    print("first run, texts embedded per point:", [p["stats"]["embedded"] for p in one])
    embedded = sum(p["stats"]["embedded"] for p in one)
    verdict = "no text embedded twice" if total == len(distinct) == embedded else "MISMATCH: some text embedded twice"
    print(f"first run: {embedded} texts embedded (all stages); cache holds {total} vectors for {len(distinct)}")
    print(f"distinct texts: {verdict}")
    needed = {text_key(t) for p in one if p["config"]["retrieval"]["mode"] == "hybrid" for t in chunk_texts(p)}
    print(f"every chunk text of the hybrid points is cached: {needed <= distinct} ({len(needed)} distinct chunk texts)")
    print(f"second run: {sum(p['stats']['embedded'] for p in two)} texts embedded (goal 0)")
    print(f"wall time: first {first:.1f} s, second {second:.1f} s, ratio {first / second:.1f}x (goal >= 10)")
    print(f"summary tables: {root / 'first' / 'summary.csv'} and {root / 'second' / 'summary.csv'}")


def chunk_texts(point: dict) -> list[str]:
    """The indexed chunk texts of one sweep point, rebuilt from its config (served by the chunk cache)."""
    from hydra import compose, initialize_config_dir

    from rag_bench.config.schema import register, validate
    from rag_bench.core.paths import project_folder
    from rag_bench.core.workspace import Workspace
    from rag_bench.data.bundled import dataset_folder
    from rag_bench.embed.registry import EMBEDDERS
    from rag_bench.pipeline.run import chunk_dataset, load

    register()
    c = point["config"]
    overrides = [
        f"dataset={c['dataset']['name']}",
        f"chunker.size={c['chunker']['size']}",
        f"chunker.overlap={c['chunker']['overlap']}",
    ]
    with initialize_config_dir(config_dir=str(project_folder("configs")), version_base="1.3"):
        cfg = validate(compose(config_name="config", overrides=overrides))
    ws = Workspace.open(cfg.cache_dir)
    dataset = load(ws, dataset_folder(cfg.dataset.name, cfg.dataset.path), cfg.dataset.name)
    corpus, _ = chunk_dataset(ws, dataset, cfg.chunker, EMBEDDERS.build(cfg.embedder))
    return corpus.passages + [q.text for q in dataset.questions]


if __name__ == "__main__":
    main()
