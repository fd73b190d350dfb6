import numpy as np
import pytest

from rag_bench.report.sweep.collect import collect
from rag_bench.report.sweep.marks import DIFF, mark_points, paired_differences, with_marks


def test_paired_difference_from_the_best_by_hand():
    scores = {"a": np.array([1.0, 1.0, 0.0, 1.0]), "b": np.array([0.0, 1.0, 0.0, 0.0]), "c": np.array([1.0] * 4)}
    diffs = paired_differences(scores, "a", seed=0)
    assert (diffs["a"].mean, diffs["a"].ci_low, diffs["a"].ci_high) == (0.0, 0.0, 0.0)
    assert diffs["b"].mean == -0.5  # (-1 + 0 + 0 - 1) / 4
    assert -1.0 <= diffs["b"].ci_low < -0.5 < diffs["b"].ci_high <= 0.0
    assert diffs["c"].mean == 0.25


def test_a_question_one_point_did_not_score_is_left_out_of_that_pair():
    diffs = paired_differences({"a": np.array([1.0, 1.0]), "b": np.array([np.nan, 0.0])}, "a")
    assert (diffs["b"].mean, diffs["b"].n) == (-1.0, 1)


def test_with_marks_adds_the_differences(size_sweep):
    sweep = collect(size_sweep)
    table = with_marks(sweep.table, mark_points(sweep, "ndcg@10"))
    assert list(table[DIFF]) == pytest.approx([-1.0, 0.0, -1 / 6])
    assert list(table[f"{DIFF}_low"])[:2] == [-1.0, 0.0] and list(table[f"{DIFF}_high"])[:2] == [-1.0, 0.0]
