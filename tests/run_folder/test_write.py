"""run.trec: any TREC tool (score descending, then docno descending) ranks the chunks as rag-bench did."""

import math
import os
import subprocess
import sys

import numpy as np

from rag_bench.importers.trec import read_trec_run
from rag_bench.run_folder.write import trec_scores


def test_tied_and_missing_scores_become_strictly_decreasing_by_the_smallest_steps():
    out = trec_scores(np.array([2.0, 1.0, 1.0, 1.0, 0.5, -np.inf, -np.inf]))
    assert out[:2] == [2.0, 1.0]
    assert out[2] == np.nextafter(1.0, -np.inf) and out[3] == np.nextafter(out[2], -np.inf)
    assert out[4] == 0.5 and out[5] == np.nextafter(0.5, -np.inf) and out[6] < out[5]
    assert all(a > b for a, b in zip(out, out[1:], strict=False))
    assert all(math.isclose(a, b, rel_tol=1e-14) for a, b in zip(out[:5], [2.0, 1.0, 1.0, 1.0, 0.5], strict=True))


def test_run_trec_read_in_trec_order_is_the_runs_own_order(tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    args = ["dataset=annual-report", "embedder=fake", "retrieval=hybrid", "reranker=fake", "reranker.depth=5"]
    done = subprocess.run(
        [sys.executable, "-m", "rag_bench", *args, f"hydra.run.dir={out}"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    runs = read_trec_run(out / "run.trec")  # trec_eval's order
    rows = [line.split(",", 1)[0] for line in (out / "per_question.csv").read_text().splitlines()[1:]]
    lines = (out / "run.trec").read_text().splitlines()
    ours: dict[str, list[str]] = {}
    for line in lines:
        qid, _, chunk_id, rank, _, _ = line.split()
        ours.setdefault(qid, []).append(chunk_id)
        assert int(rank) == len(ours[qid])
    assert set(ours) == set(rows)
    assert {q: [c for c, _ in ranking] for q, ranking in runs.items()} == ours
    # hybrid fusion and a reranker that scores only its top 5 leave ties (written a few ulps apart):
    # without tie-safe scores trec_eval would have reordered them by docno
    written = [[s for _, s in ranking] for ranking in runs.values()]
    ties = sum(0 < a - b <= 4 * np.spacing(abs(a)) for row in written for a, b in zip(row, row[1:], strict=False))
    assert ties > 0
