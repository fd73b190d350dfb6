import numpy as np
import pytest

from rag_bench.index.topk import top_k_row
from rag_bench.retrieve.fusion.rrf import rrf


def _reference_rrf(runs, k_rrf=60.0, weights=None):
    """The per-query loop that ``rrf`` replaced: the oracle for the vectorised path."""
    weights = [1.0] * len(runs) if weights is None else list(weights)
    n_queries, width = runs[0].shape[0], sum(r.shape[1] for r in runs)
    items = np.concatenate(runs, axis=1)
    parts = [w / (k_rrf + np.arange(1, r.shape[1] + 1)) for r, w in zip(runs, weights, strict=True)]
    contrib = np.concatenate([np.broadcast_to(p, r.shape) for p, r in zip(parts, runs, strict=True)], axis=1)
    out_idx = np.full((n_queries, width), -1, dtype=np.int64)
    out_val = np.full((n_queries, width), -np.inf)
    for q in range(n_queries):
        valid = items[q] >= 0
        unique, inverse = np.unique(items[q][valid], return_inverse=True)
        fused = np.bincount(inverse, weights=contrib[q][valid], minlength=len(unique))
        order, values = top_k_row(fused, len(unique))
        out_idx[q, : len(order)] = unique[order]
        out_val[q, : len(order)] = values
    return out_idx, out_val


def _run(rng, n_queries, depth, n_items):
    """Random ranked lists without repeats inside a row, with -1 padding at the tail."""
    rows = np.stack([rng.permutation(n_items)[:depth] for _ in range(n_queries)])
    cut = rng.integers(0, depth + 1, size=n_queries)
    rows[np.arange(depth)[None, :] >= cut[:, None]] = -1
    return rows


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("k_rrf", "weights"), [(60.0, None), (0.0, [2.0, 1.0, 0.5]), (1.0, [0.3, 0.3, 0.1])])
def test_equals_the_per_query_loop_bit_for_bit(seed, k_rrf, weights):
    rng = np.random.default_rng(seed)
    runs = [_run(rng, 30, 12, 25), _run(rng, 30, 7, 25), _run(rng, 30, 20, 25).astype(np.int32)]
    idx, val = rrf(runs, k_rrf, weights)
    want_idx, want_val = _reference_rrf(runs, k_rrf, weights)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_array_equal(val, want_val)  # same sums in the same order: exactly equal


def test_all_padding_and_sum_order():
    runs = [np.array([[-1, -1], [3, 4]]), np.array([[-1], [4]])]
    idx, val = rrf(runs, k_rrf=1.0)
    assert idx.tolist() == [[-1, -1, -1], [4, 3, -1]]
    assert val[1, 0] == 1 / 3 + 1 / 2 and val[1, 1] == 1 / 2 and val[0, 0] == -np.inf
