import numpy as np
import pytest

from rag_bench.index.topk import StreamingTopK, pack_keys, top_k, top_k_row, unpack_keys


def _reference_top_k(scores, depth, valid=None):
    """The definition: a full sort of each row's valid items by (score descending, index)."""
    n_queries, n_items = scores.shape
    indices = np.full((n_queries, depth), -1, dtype=np.int64)
    values = np.full((n_queries, depth), -np.inf, dtype=np.float64)
    for row in range(n_queries):
        items = np.arange(n_items) if valid is None else np.flatnonzero(valid[row])
        order = items[np.lexsort((items, -scores[row, items]))][:depth]
        indices[row, : len(order)] = order
        values[row, : len(order)] = scores[row, order]
    return indices, values


def _tied_scores(seed, shape, dtype):
    """Scores from a handful of values, so ties (also at the cut) are everywhere."""
    rng = np.random.default_rng(seed)
    return rng.integers(-3, 4, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("depth", [0, 1, 5, 40, 60])
@pytest.mark.parametrize("masked", [False, True])
def test_top_k_equals_the_per_row_loop(dtype, depth, masked):
    scores = _tied_scores(depth, (25, 50), dtype)
    valid = np.random.default_rng(1).random((25, 50)) < 0.3 if masked else None
    idx, val = top_k(scores, depth, valid)
    want_idx, want_val = _reference_top_k(scores, depth, valid)
    assert idx.dtype == np.int64 and val.dtype == np.float64
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_array_equal(val, want_val)


@pytest.mark.parametrize("depth", [0, 1, 5, 49, 50, 80])
@pytest.mark.parametrize("masked", [False, True])
def test_top_k_row_equals_a_full_sort(depth, masked):
    scores = _tied_scores(depth + 7, (6, 50), np.float64)
    valid = np.random.default_rng(2).random((6, 50)) < 0.5 if masked else None
    want_idx, want_val = _reference_top_k(scores, depth, valid)
    for row in range(6):
        idx, val = top_k_row(scores[row], depth, None if valid is None else valid[row])
        assert idx.tolist() == [i for i in want_idx[row].tolist() if i >= 0]
        assert val.tolist() == want_val[row, : len(idx)].tolist()


def test_top_k_keeps_inputs_and_handles_empty_rows():
    scores = np.array([[1.0, 2.0], [3.0, 3.0]])
    valid = np.array([[False, False], [True, True]])
    idx, val = top_k(scores, 1, valid)
    assert idx.tolist() == [[-1], [0]] and val.tolist() == [[-np.inf], [3.0]]
    assert valid.tolist() == [[False, False], [True, True]]


def test_keys_order_by_score_then_lower_index():
    scores = np.array([0.5, -0.0, 0.0, -np.inf, np.inf, -2.5, 0.5], dtype=np.float32)
    indices = np.arange(7)
    keys = pack_keys(scores, indices)
    # best first: inf(4), 0.5(0), 0.5(6), 0.0(1, was -0.0), 0.0(2), -2.5(5), -inf(3)
    assert np.argsort(-keys.astype(np.float64), kind="stable").tolist() == [4, 0, 6, 1, 2, 5, 3]
    assert np.sort(keys)[::-1].tolist() == keys[[4, 0, 6, 1, 2, 5, 3]].tolist()
    back_idx, back_scores = unpack_keys(keys)
    assert back_idx.tolist() == indices.tolist()
    assert back_scores.tolist() == [0.5, 0.0, 0.0, -np.inf, np.inf, -2.5, 0.5]
    assert unpack_keys(np.zeros(1, np.uint64))[0].tolist() == [-1]


def test_streaming_ties_across_blocks_keep_the_lower_index():
    best = StreamingTopK(1, 3)
    best.push(np.array([[0.5, 0.75]], np.float32), 0)
    best.push(np.array([[0.75, 0.5]], np.float32), 2)
    idx, val = best.result()
    assert idx.tolist() == [[1, 2, 0]] and val.tolist() == [[0.75, 0.75, 0.5]]


@pytest.mark.parametrize("depth", [1, 7, 30, 120])
@pytest.mark.parametrize("width", [3, 16, 64])
def test_streaming_equals_top_k_over_the_whole_matrix(depth, width):
    scores = _tied_scores(depth * width, (40, 100), np.float32)
    scores[scores == 0] = np.float32(-0.0)  # -0.0 ties with 0.0, as comparisons say
    scores[::3, ::7] = 0.0
    best = StreamingTopK(40, depth)
    for first in range(0, 100, width):
        best.push(scores[:, first : first + width], first)
    idx, val = best.result()
    want_idx, want_val = _reference_top_k(scores, depth)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_array_equal(val, want_val)
