"""Reproduce the Chroma chunking evaluation (Smith & Troynikov, 2024) for all-MiniLM-L6-v2.

Usage: python benchmarks/reproduce/chroma.py [--chroma ../shared/datasets/chroma-chunking]
       [--rows langchain-200-0,cluster-200-0,...] [--out results/runs/reproduce/chroma]

Their protocol, in rag-bench's names: all five corpora chunked into ONE index; each of the
472 questions retrieves the top 5 chunks by cosine (retrieval=dense); recall = coverage@5,
precision = char_precision@5, IoU = iou@5, precision_omega as is. Chunk sizes count
all-MiniLM-L6-v2 WordPiece tokens, special tokens included (chunker.unit=tokens).
A row is CHUNKER-SIZE-OVERLAP[-PIECE_SIZE]:
  recursive  rag-bench's own recursive splitter (sizes counted over the whole chunk)
  langchain  LangChain's RecursiveCharacterTextSplitter arithmetic, as their Recursive rows ran
  cluster    rag-bench's cluster chunker, pieces of PIECE_SIZE tokens (default 50, as theirs);
             cluster-140-0-35 is finer: its mean chunk (458 characters) is near theirs (434)
Prints our values next to the published ones (their table for all-MiniLM-L6-v2, in %); the
langchain rows are compared with their Recursive rows, which LangChain's splitter produced.
The column "PΩ touch" is precision_omega under their code's rule, where a chunk that only meets
a reference at its boundary (zero-length overlap) also counts as touching it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.core.cache import default_cache_dir
from rag_bench.core.types import Chunk, Question
from rag_bench.core.workspace import Workspace
from rag_bench.data.native import load_dataset
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.pipeline.run import chunk_dataset
from rag_bench.score.spans import intersection_size, size, union

RECURSIVE = {
    (250, 125): (78.7, 4.9, 21.9, 4.9),
    (250, 0): (78.5, 5.4, 26.7, 5.4),
    (200, 0): (75.7, 6.5, 31.2, 6.5),
}
# (chunker, size, overlap) -> published recall, precision, precision_omega, IoU (in %)
PUBLISHED = {
    **{("recursive", *key): value for key, value in RECURSIVE.items()},
    **{("langchain", *key): value for key, value in RECURSIVE.items()},
    ("cluster", 200, 0): (75.2, 7.2, 33.6, 7.2),  # their ClusterSemanticChunker row (max_chunk_size 200)
    ("cluster", 140, 0): (75.2, 7.2, 33.6, 7.2),  # the same row, at a matched mean chunk size
}
PIECE_SIZE = 50  # their cluster pieces: under 50 tokens each
METRICS = ("coverage@5", "char_precision@5", "precision_omega", "iou@5")
ROWS = ",".join(f"{chunker}-{size}-{overlap}" for chunker in ("recursive", "langchain") for size, overlap in RECURSIVE)


def rag_bench(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "rag_bench", *args], check=True)


def run_row(native: Path, row: str, out: Path) -> dict:
    """Run one CHUNKER-SIZE-OVERLAP[-PIECE_SIZE] row into ``out``; its metrics.json."""
    chunker, size, overlap, *piece = row.split("-")
    extra = [f"chunker.piece_size={piece[0] if piece else PIECE_SIZE}"] if chunker == "cluster" else []
    rag_bench(
        f"dataset.path={native}",
        "dataset.name=chroma-chunking",
        "retrieval=dense",
        "ks=[5]",
        f"chunker={chunker}",
        "chunker.unit=tokens",
        f"chunker.size={size}",
        f"chunker.overlap={overlap}",
        *extra,
        f"hydra.run.dir={out}",
    )
    return json.loads((out / "metrics.json").read_text())


def row_chunks(native: Path, row: str) -> list[Chunk]:
    """The chunks a row indexed (from the chunk cache the run filled)."""
    chunker, size_, overlap, *piece = row.split("-")
    piece_size = int(piece[0]) if piece else PIECE_SIZE
    settings = {"size": int(size_), "unit": "tokens"}
    settings |= {"piece_size": piece_size} if chunker == "cluster" else {"overlap": float(overlap)}
    cfg = CHUNKERS.settings(chunker, **settings)
    embedder = EMBEDDERS.build(EMBEDDERS.settings("local"))
    return chunk_dataset(Workspace.open(None), load_dataset(native), cfg, embedder, native)[0].chunks


def touching_omega(chunks: Sequence[Chunk], questions: Sequence[Question]) -> float:
    """Mean |E & T| / |T| with T every chunk whose closed range [start, end] meets a span (their rule)."""
    bounds: dict[str, list[tuple[int, int]]] = {}
    for c in chunks:
        bounds.setdefault(c.doc_id, []).append((c.start, c.end))
    arrays = {doc: np.array(b, dtype=np.int64) for doc, b in bounds.items()}  # (n_chunks, 2) per document
    scores = []
    for q in (q for q in questions if q.spans):
        spans = [(s.doc_id, s.start, s.end) for s in q.spans]
        touched = []
        for doc, start, end in spans:
            b = arrays.get(doc, np.zeros((0, 2), dtype=np.int64))
            touched += [(doc, int(a), int(z)) for a, z in b[(b[:, 0] <= end) & (b[:, 1] >= start)]]
        t = union(touched)
        scores.append(intersection_size(union(spans), t) / size(t) if t else 0.0)
    return float(np.mean(scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--chroma", default=str(Path(__file__).resolve().parents[3] / "shared/datasets/chroma-chunking")
    )
    parser.add_argument("--rows", default=f"{ROWS},cluster-200-0,cluster-140-0-35")
    parser.add_argument("--out", default="results/runs/reproduce/chroma")
    args = parser.parse_args()
    native = default_cache_dir() / "datasets" / "chroma-chunking"
    if not (native / "questions.jsonl").is_file():
        rag_bench("import", "chroma", str(Path(args.chroma) / "questions.csv"), str(native), "--force")
    results = [(row, run_row(native, row, Path(args.out) / row)) for row in args.rows.split(",")]
    questions = load_dataset(native).questions
    print(
        "\n| row | chunks | mean chars | recall | precision | precision_omega | IoU | PΩ touch "
        "| published (R / P / PΩ / IoU) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row, result in results:
        chunker, size, overlap, *_ = row.split("-")
        m, stats = result["metrics"], result["stats"]
        ours = " | ".join(f"{100 * m[name]:.1f}" for name in METRICS)
        pub = PUBLISHED.get((chunker, int(size), int(overlap)))
        published = " / ".join(f"{v:.1f}" for v in pub) if pub else "-"
        touch = 100 * touching_omega(row_chunks(native, row), questions)
        print(f"| {row} | {stats['chunks']} | {stats['mean_chunk_chars']:.0f} | {ours} | {touch:.1f} | {published} |")


if __name__ == "__main__":
    main()
