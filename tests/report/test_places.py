import math

import numpy as np

from rag_bench.report.run.places import rounded, stage_places, top_rows


def _place(row: list[int], c: int) -> int | None:
    """The last position of ``c`` in ``row``, found one list at a time (the oracle)."""
    at = [i for i, x in enumerate(row) if x == c]
    return at[-1] if at else None


def _shown(value: float) -> float | None:
    return float(f"{value:.6g}") if math.isfinite(value) else None


def test_ranks_and_scores_per_stage_match_a_search_of_each_list():
    rng = np.random.default_rng(2)
    n, k = 40, 4
    final = rng.integers(0, 12, (n, 7))
    final[rng.random(final.shape) < 0.2] = -1  # padding, also before listed chunks
    final[5] = -1
    stages = []
    for width in (9, 7, 3):
        indices = rng.integers(0, 12, (n, width))  # repeats: a stage may hold a chunk twice
        indices[rng.random(indices.shape) < 0.2] = -1
        stages.append((indices, rng.normal(size=(n, width)).astype(np.float32)))
    stages.append((final, rng.normal(size=final.shape) * 1e-3))
    stages[0][1][0, :] = [np.inf, -0.0, np.nan, 0.0, 1e-7, 123456.75, 1.0000005, -2.5e9, 3]
    top = top_rows(final, k)
    assert top.tolist() == [([c for c in row if c >= 0][:k] + [-1] * k)[:k] for row in final.tolist()]
    places = stage_places(top, stages, block=50)  # blocks of a few rows, as at many questions
    assert places == stage_places(top, stages)
    for q in range(n):
        for j, c in enumerate(top[q].tolist()):
            expected_ranks, expected_scores = [], []
            for indices, scores in stages:
                at = _place(indices[q].tolist(), c) if c >= 0 else None
                expected_ranks.append(None if at is None else at + 1)
                expected_scores.append(None if at is None else _shown(float(scores[q, at])))
            assert places[q][j] == expected_ranks + expected_scores
    found = [v for row in places for entry in row for v in entry[4:] if v is not None]
    assert len(found) > 100 and all(type(v) is float for v in found)


def test_rounding_keeps_the_sign_of_zero_and_drops_what_is_not_finite():
    values = np.array([-0.0, 0.0, 1 / 3, 1 / 3, np.inf, np.nan, 2.0000004, 0.1])
    shown = rounded(values, np.array([True] * 7 + [False])).tolist()
    assert shown == [-0.0, 0.0, 0.333333, 0.333333, None, None, 2.0, None]
    assert math.copysign(1, shown[0]) == -1 and math.copysign(1, shown[1]) == 1
