"""Reproduce the Chroma chunking evaluation (Smith & Troynikov, 2024) for all-MiniLM-L6-v2.

Usage: python benchmarks/reproduce/chroma.py [--chroma ../shared/datasets/chroma-chunking]
       [--rows recursive-200-0,...] [--chunker cluster --size 200]

Their protocol, in rag-bench's names: all five corpora chunked into ONE index; each of the
472 questions retrieves the top 5 chunks by cosine (retrieval=dense); recall = coverage@5,
precision = char_precision@5, IoU = iou@5, precision_omega as is. Chunk sizes count
all-MiniLM-L6-v2 WordPiece tokens, special tokens included (chunker.unit=tokens).
Prints our values next to the published ones (their Table for all-MiniLM-L6-v2, in %).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from rag_bench.cache import default_cache_dir

# (chunker, size, overlap) -> published recall, precision, precision_omega, IoU (in %)
PUBLISHED = {
    ("recursive", 250, 125): (78.7, 4.9, 21.9, 4.9),
    ("recursive", 250, 0): (78.5, 5.4, 26.7, 5.4),
    ("recursive", 200, 0): (75.7, 6.5, 31.2, 6.5),
    ("cluster", 200, 0): (75.2, 7.2, 33.6, 7.2),  # their ClusterSemanticChunker row
}
METRICS = ("coverage@5", "char_precision@5", "precision_omega", "iou@5")


def rag_bench(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "rag_bench", *args], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--chroma", default=str(Path(__file__).resolve().parents[3] / "shared/datasets/chroma-chunking")
    )
    parser.add_argument("--rows", default="recursive-250-125,recursive-250-0,recursive-200-0")
    parser.add_argument("--out", default="results/runs/reproduce/chroma")
    args = parser.parse_args()
    native = default_cache_dir() / "datasets" / "chroma-chunking"
    if not (native / "questions.jsonl").is_file():
        rag_bench("import", "chroma", str(Path(args.chroma) / "questions.csv"), str(native), "--force")
    print_rows = []
    for row in args.rows.split(","):
        chunker, size, overlap = row.split("-")
        out = Path(args.out) / row
        rag_bench(
            f"dataset.path={native}",
            "dataset.name=chroma-chunking",
            "retrieval=dense",
            "ks=[5]",
            f"chunker={chunker}",
            "chunker.unit=tokens",
            f"chunker.size={size}",
            f"chunker.overlap={overlap}",
            f"hydra.run.dir={out}",
        )
        metrics = json.loads((out / "metrics.json").read_text())["metrics"]
        print_rows.append(((chunker, int(size), int(overlap)), metrics))
    print("\n| chunker | size | overlap | recall | precision | precision_omega | IoU | published (R / P / PΩ / IoU) |")
    print("|---|---|---|---|---|---|---|---|")
    for (chunker, size, overlap), m in print_rows:
        ours = " | ".join(f"{100 * m[name]:.1f}" for name in METRICS)
        pub = PUBLISHED.get((chunker, size, overlap))
        published = " / ".join(f"{v:.1f}" for v in pub) if pub else "-"
        print(f"| {chunker} | {size} | {overlap} | {ours} | {published} |")


if __name__ == "__main__":
    main()
