"""Per-category retrieval quality of a bundled dataset: bm25 / dense / hybrid at several chunk sizes.

Usage: python benchmarks/dataset_table.py [--dataset kestrel-kb] [--sizes 400,800,1200]
Prints a Markdown table of recall@5, recall@10 and ndcg@10 per category (and overall).
Runs the real pipeline with the local embedder; the cache makes reruns fast.
"""

from __future__ import annotations

import argparse

from hydra import compose, initialize_config_dir

from rag_bench.config.schema import register, validate
from rag_bench.core.paths import project_folder
from rag_bench.pipeline.run import run

METRICS = ("recall@5", "recall@10", "ndcg@10")


def measure(dataset: str, mode: str, size: int) -> dict[str, dict[str, float]]:
    """category -> metric -> mean, plus "all", for one configuration."""
    overrides = [f"dataset={dataset}", f"retrieval={mode}", f"chunker.size={size}"]
    with initialize_config_dir(config_dir=str(project_folder("configs")), version_base="1.3"):
        cfg = validate(compose(config_name="config", overrides=overrides))
    ev = run(cfg).evaluation
    table = {cat: {m: values[m] for m in METRICS} for cat, values in ev.by_category.items()}
    table["all"] = {m: ev.summary[m].mean for m in METRICS}
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="kestrel-kb")
    parser.add_argument("--sizes", default="400,800,1200")
    args = parser.parse_args()
    register()
    rows = []
    for size in map(int, args.sizes.split(",")):
        for mode in ("bm25", "dense", "hybrid"):
            for category, values in sorted(measure(args.dataset, mode, size).items()):
                rows.append((size, mode, category, values))
    print("| chunk size (chars) | retrieval | category | " + " | ".join(METRICS) + " |")
    print("|---|---|---|" + "---|" * len(METRICS))
    for size, mode, category, values in rows:
        print(f"| {size} | {mode} | {category} | " + " | ".join(f"{values[m]:.3f}" for m in METRICS) + " |")


if __name__ == "__main__":
    main()
