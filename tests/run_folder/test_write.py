"""run.trec: any TREC tool (score descending, then docno descending) ranks the chunks as rag-bench did."""

import os
import subprocess
import sys

import numpy as np

from rag_bench.core.ties import trec_scores
from rag_bench.importers.trec import read_trec_run


def down(x, steps=1):
    """The float32 ``steps`` below ``x`` (as a float)."""
    value = np.float32(x)
    for _ in range(steps):
        value = np.nextafter(value, np.float32(-np.inf))
    return float(value)


def test_tied_and_missing_scores_become_strictly_decreasing_in_float32_by_the_smallest_steps():
    out = trec_scores(np.array([2.0, 1.0, 1.0, 1.0, 0.5, -np.inf, -np.inf]))
    assert out == [2.0, 1.0, down(1.0), down(1.0, 2), 0.5, down(0.5), down(0.5, 2)]
    assert all(np.float32(a) > np.float32(b) for a, b in zip(out, out[1:], strict=False))
    # scores distinct in float64 but equal in float32 (trec_eval compares float32): stepped apart too
    assert trec_scores([1.0 + 1e-12, 1.0]) == [1.0, down(1.0)]
    # a finite score beyond float32's range is clipped to it; the first score, when not finite, is 0
    assert trec_scores([1e300, 1e300]) == [down(np.inf), down(np.inf, 2)]
    assert trec_scores([-np.inf, 3.0]) == [0.0, -(2.0**-149)] and trec_scores([]) == []


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
    # hybrid fusion and a reranker that scores only its top 5 leave ties (written a few float32 ulps apart):
    # without tie-safe scores trec_eval would have reordered them by docno
    written = [[s for _, s in ranking] for ranking in runs.values()]
    step = [np.spacing(np.float32(abs(a))) for row in written for a in row[:-1]]
    pairs = [(a, b) for row in written for a, b in zip(row, row[1:], strict=False)]
    ties = sum(0 < a - b <= 4 * ulp for (a, b), ulp in zip(pairs, step, strict=True))
    assert ties > 0


def test_trec_score_rows_equal_trec_scores_row_by_row_and_prefix_by_prefix():
    from rag_bench.core.ties import trec_score_rows

    rng = np.random.default_rng(8)
    scores = np.sort(rng.integers(0, 4, (50, 12)).astype(float) / 4, axis=1)[:, ::-1].copy()  # many ties
    scores[::7, 5:] = -np.inf  # below a reranker's depth
    scores[3, 0] = np.nan
    scores[4] = [1e40, 1e40, 3.0, 2.0, 2.0, 2.0, 1.0, 0.0, -0.0, -1.0, -1e40, -np.inf]
    rows = trec_score_rows(scores)
    for i, row in enumerate(scores):
        for m in (1, 5, 12):
            assert rows[i, :m].tolist() == trec_scores(row[:m])
    assert rows[4, :3].tolist()[2] == 3.0 and trec_score_rows(np.zeros((0, 3))).shape == (0, 3)
