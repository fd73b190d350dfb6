"""A real Hydra multirun over chunk sizes: semantic and cluster embed each window or piece once per model."""

import json
import os
import subprocess
import sys

import pytest

from rag_bench.chunk.base import measure_units
from rag_bench.chunk.registry import CHUNKERS
from rag_bench.chunk.settings import ChunkerTools
from rag_bench.data.bundled import dataset_folder
from rag_bench.data.native import load_dataset


def distinct_parts(name: str) -> set[str]:
    """The texts chunker ``name`` embeds on annual-report, found without embedding anything."""
    chunker = CHUNKERS.build(CHUNKERS.settings(name), ChunkerTools())
    docs = load_dataset(dataset_folder("annual-report", None)).documents
    return {p for d in docs for p in chunker.splitter.parts(d.text, measure_units(d, "chars", chunker.tools))}


@pytest.mark.parametrize("name", ["semantic", "cluster"])
def test_second_sweep_point_embeds_nothing(tmp_path, name):
    sweep = tmp_path / "sweep"
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "rag_bench", "-m", "dataset=annual-report", "embedder=fake", "retrieval=bm25"]
    command += [f"chunker={name}", "chunker.size=700,1400", f"hydra.sweep.dir={sweep}"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    stats = [json.loads((sweep / str(i) / "metrics.json").read_text())["stats"] for i in (0, 1)]
    assert [s["reused"]["chunks"] for s in stats] == [False, False]  # both points chunked
    # BM25 embeds no chunk: the first point embeds exactly the distinct windows (pieces), the second none.
    assert [s["embedded"] for s in stats] == [len(distinct_parts(name)), 0]
    assert stats[0]["chunks"] != stats[1]["chunks"]  # the two sizes did cut differently
