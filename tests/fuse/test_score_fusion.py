"""Score fusion (convex min-max / z-score, dbsf) against values worked out by hand, and against a plain loop."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.core.errors import ConfigError
from rag_bench.retrieve.fusion.combine import combine
from rag_bench.retrieve.fusion.convex import convex
from rag_bench.retrieve.fusion.dbsf import dbsf
from rag_bench.retrieve.fusion.methods import Fusion, check_fusion

NEG = -np.inf
# BM25 lists chunks 0, 1, 2 with scores 12, 8, 4; dense lists chunks 1, 3 with 0.9, 0.6
BM25 = (np.array([[0, 1, 2]]), np.array([[12.0, 8.0, 4.0]]))
DENSE = (np.array([[1, 3, -1]]), np.array([[0.9, 0.6, NEG]]))


def as_dict(indices, scores):
    return {int(c): float(s) for c, s in zip(indices[0], scores[0], strict=True) if c >= 0}


def test_minmax_by_hand():
    # bm25: 0 -> 1, 1 -> 0.5, 2 -> 0; dense: 1 -> 1, 3 -> 0; a chunk a list lacks takes 0 there
    indices, scores = convex([BM25, DENSE], [1.0, 1.0], "minmax")
    assert indices[0].tolist() == [1, 0, 2, 3, -1, -1]  # 2 and 3 tie at 0: lower index first
    assert as_dict(indices, scores) == pytest.approx({1: 1.5, 0: 1.0, 2: 0.0, 3: 0.0})


def test_minmax_weights():
    indices, scores = convex([BM25, DENSE], [1.0, 3.0], "minmax")
    assert as_dict(indices, scores) == pytest.approx({1: 0.5 + 3.0, 0: 1.0, 2: 0.0, 3: 0.0})
    assert indices[0, :2].tolist() == [1, 0]


def test_zscore_by_hand():
    # bm25 mean 8, std sqrt(32/3): z = (+1.2247, 0, -1.2247); dense mean 0.75, std 0.15: z = (+1, -1)
    # a chunk a list lacks takes that list's lowest z: bm25 -1.2247, dense -1
    zb = 4 / math.sqrt(32 / 3)
    indices, scores = convex([BM25, DENSE], [1.0, 1.0], "zscore")
    expected = {0: zb - 1, 1: 0 + 1, 2: -zb - 1, 3: -zb - 1}
    assert as_dict(indices, scores) == pytest.approx(expected)
    assert indices[0, :4].tolist() == [1, 0, 2, 3]


def test_dbsf_by_hand():
    # bm25: (s - 8 + 3 sd) / (6 sd), sd = sqrt(32/3); dense: (s - 0.75 + 0.45) / 0.9; absent adds 0
    sd = math.sqrt(32 / 3)
    b = {c: (s - 8 + 3 * sd) / (6 * sd) for c, s in zip([0, 1, 2], [12, 8, 4], strict=True)}
    d = {1: (0.9 - 0.3) / 0.9, 3: (0.6 - 0.3) / 0.9}
    indices, scores = dbsf([BM25, DENSE], [1.0, 1.0])
    assert as_dict(indices, scores) == pytest.approx({0: b[0], 1: b[1] + d[1], 2: b[2], 3: d[3]})
    assert indices[0, :4].tolist() == [1, 0, 3, 2]
    assert b[0] == pytest.approx(0.5 + 4 / (6 * sd))  # the docstring's example, (3, 2, 1) scaled: 0.704 at 3


def test_lists_of_equal_scores_and_empty_rows():
    one = (np.array([[5, -1], [-1, -1]]), np.array([[2.0, NEG], [NEG, NEG]]))
    two = (np.array([[6, 7], [-1, -1]]), np.array([[3.0, 3.0], [NEG, NEG]]))
    indices, scores = convex([one, two], [1.0, 1.0], "minmax")  # equal scores: each candidate 1, absent 0
    assert indices[0, :3].tolist() == [5, 6, 7] and scores[0, :3].tolist() == [1.0, 1.0, 1.0]
    assert indices[1].tolist() == [-1] * 4 and np.isneginf(scores[1]).all()
    indices, scores = dbsf([one, two], [1.0, 2.0])  # equal scores: 0.5 each (the mean's place)
    assert as_dict(indices[:1], scores[:1]) == {5: 0.5, 6: 1.0, 7: 1.0}
    indices, scores = convex([one, two], [1.0, 1.0], "zscore")  # equal scores: z = 0
    assert scores[0, :3].tolist() == [0.0, 0.0, 0.0]


def loop_fusion(runs, weights, normalise):
    """Reference: one question at a time, dictionaries and plain floats."""
    out = []
    for q in range(runs[0][0].shape[0]):
        total: dict[int, float] = {}
        base = 0.0
        per_list = []
        for (indices, scores), w in zip(runs, weights, strict=True):
            row = {int(c): float(s) for c, s in zip(indices[q], scores[q], strict=True) if c >= 0}
            norm, absent = normalise(list(row.values()))
            per_list.append((dict(zip(row, norm, strict=True)), absent, w))
        items = sorted({c for row, _, _ in per_list for c in row})
        for c in items:
            total[c] = sum(w * row.get(c, absent) for row, absent, w in per_list)
        base = sum(w * absent for _, absent, w in per_list)
        out.append((sorted(total.items(), key=lambda kv: (-kv[1], kv[0])), base))
    return out


def minmax_plain(values):
    if not values:
        return [], 0.0
    lo, hi = min(values), max(values)
    return ([1.0] * len(values) if hi == lo else [(v - lo) / (hi - lo) for v in values]), 0.0


lists = st.lists(st.tuples(st.integers(0, 12), st.floats(-50, 50, allow_nan=False)), max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(lists, lists), min_size=1, max_size=4), st.floats(0, 5), st.floats(0.1, 5))
def test_minmax_equals_a_plain_loop(questions, w1, w2):
    def run(which):
        width = 6
        indices = np.full((len(questions), width), -1)
        scores = np.full((len(questions), width), NEG)
        for q, pair in enumerate(questions):
            row = list(dict(pair[which]).items())  # one score per item, as a retriever's list
            row.sort(key=lambda kv: -kv[1])
            for j, (c, s) in enumerate(row):
                indices[q, j], scores[q, j] = c, s
        return indices, scores

    runs = [run(0), run(1)]
    indices, scores = convex(runs, [w1, w2], "minmax")
    for q, (expected, _) in enumerate(loop_fusion(runs, [w1, w2], minmax_plain)):
        got = [(int(c), float(s)) for c, s in zip(indices[q], scores[q], strict=True) if c >= 0]
        assert [c for c, _ in got] == [c for c, _ in expected] or all(
            math.isclose(a[1], b[1], abs_tol=1e-9) for a, b in zip(got, expected, strict=True)
        )
        assert [s for _, s in got] == pytest.approx([s for _, s in expected], abs=1e-9)


def test_combine_sums_entries_of_one_item_and_breaks_ties_by_index():
    items = np.array([[4, 2, 4, -1, 9]])
    values = np.array([[0.5, 1.0, 0.5, 7.0, 1.0]])
    indices, scores = combine(items, values, np.array([0.25]))
    assert indices[0].tolist() == [2, 4, 9, -1, -1]  # 4 = 0.25 + 1.0 ties 2 and 9: by index
    assert scores[0, :3].tolist() == [1.25, 1.25, 1.25]


def test_score_fusion_needs_finite_scores():
    runs = [BM25, (np.array([[1, 3, -1]]), np.array([[0.9, NEG, NEG]]))]  # chunk 3 listed without a score
    with pytest.raises(ConfigError, match="list 'dense' holds candidates without a finite score; use fusion rrf"):
        Fusion("convex").fuse(runs, [1.0, 1.0], ["bm25", "dense"])
    indices, _ = Fusion("rrf").fuse(runs, [1.0, 1.0], ["bm25", "dense"])  # ranks only: fine
    assert indices[0, :2].tolist() == [1, 0]


def test_rrf_by_name_is_rrf():
    indices, scores = Fusion("rrf", k_rrf=60).fuse([BM25, DENSE], [1.0, 1.0], ["bm25", "dense"])
    assert as_dict(indices, scores) == pytest.approx({1: 1 / 62 + 1 / 61, 0: 1 / 61, 3: 1 / 62, 2: 1 / 63})


@pytest.mark.parametrize(
    ("method", "normalize", "message"),
    [
        ("sum", "minmax", "retrieval.fusion ('sum') must be one of: rrf, convex, dbsf"),
        ("convex", "l2", "retrieval.normalize ('l2') must be one of: minmax, zscore"),
    ],
)
def test_unknown_method_or_normalisation(method, normalize, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_fusion("retrieval.", method, normalize)
