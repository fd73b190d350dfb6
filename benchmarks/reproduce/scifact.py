"""Reproduce Anserini's BM25 on BEIR SciFact, and add the local dense and hybrid numbers.

Usage: python benchmarks/reproduce/scifact.py [--beir ../shared/datasets/scifact] [--skip-dense]

Imports the BEIR folder (test split) into a native dataset under the cache folder, then runs
rag-bench with one chunk per abstract (title + text: chunker.prefix=title) at depth 1000:
  bm25    english analyzer, Lucene's BM25 (retrieval.bm25_variant=lucene), k1=0.9, b=0.4
  dense   local all-MiniLM-L6-v2 (abstracts truncated at 256 tokens)
  hybrid  both, RRF k=60
and prints nDCG@10, Recall@100 and Recall@1000 next to the published values
(Anserini regressions, BEIR v1.0.0, trec_eval -c).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from rag_bench.core.cache import default_cache_dir

PUBLISHED = {"bm25": {"ndcg@10": 0.6789, "recall@100": 0.9253, "recall@1000": 0.9767}}
TOLERANCE = {"ndcg@10": 0.015, "recall@100": 0.02}
COMMON = ["chunker=fixed", "chunker.size=1000000", "chunker.prefix=title", "ks=[10,100,1000]", "retrieval.depth=1000"]
SYSTEMS = {
    "bm25": [
        "retrieval=bm25",
        "retrieval.analyzer=english",
        "retrieval.bm25_variant=lucene",
        "retrieval.k1=0.9",
        "retrieval.b=0.4",
    ],
    "dense": ["retrieval=dense"],
    "hybrid": [
        "retrieval=hybrid",
        "retrieval.analyzer=english",
        "retrieval.bm25_variant=lucene",
        "retrieval.k1=0.9",
        "retrieval.b=0.4",
    ],
}


def rag_bench(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "rag_bench", *args], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", default=str(Path(__file__).resolve().parents[3] / "shared/datasets/scifact"))
    parser.add_argument("--out", default="results/runs/reproduce/scifact")
    parser.add_argument("--skip-dense", action="store_true", help="BM25 only (the dense pass embeds 5,183 abstracts)")
    args = parser.parse_args()
    native = default_cache_dir() / "datasets" / "scifact"
    if not (native / "questions.jsonl").is_file():
        rag_bench("import", "beir", args.beir, str(native), "--split", "test", "--force")
    rows = []
    for system, overrides in SYSTEMS.items():
        if args.skip_dense and system != "bm25":
            continue
        out = Path(args.out) / system
        rag_bench(f"dataset.path={native}", "dataset.name=scifact", *COMMON, *overrides, f"hydra.run.dir={out}")
        metrics = json.loads((out / "metrics.json").read_text())["metrics"]
        rows.append((system, metrics))
    print("\n| system | nDCG@10 | Recall@100 | Recall@1000 | published nDCG@10 | published R@100 | published R@1000 |")
    print("|---|---|---|---|---|---|---|")
    for system, m in rows:
        pub = PUBLISHED.get(system, {})
        cells = [f"{m[k]:.4f}" for k in ("ndcg@10", "recall@100", "recall@1000")]
        cells += [f"{pub[k]:.4f}" if k in pub else "-" for k in ("ndcg@10", "recall@100", "recall@1000")]
        print(f"| {system} | " + " | ".join(cells) + " |")
    bm25 = dict(rows)["bm25"]
    for name, tol in TOLERANCE.items():
        gap = abs(bm25[name] - PUBLISHED["bm25"][name])
        print(
            f"bm25 {name}: |{bm25[name]:.4f} - {PUBLISHED['bm25'][name]}| = {gap:.4f} "
            f"{'within' if gap <= tol else 'OUTSIDE'} {tol}"
        )


if __name__ == "__main__":
    main()
