import importlib.util

import numpy as np
import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.index.dense import DenseIndex
from rag_bench.index.hnsw import HNSWIndex, recall_at_depth

needs_faiss = pytest.mark.skipif(importlib.util.find_spec("faiss") is None, reason="the 'ann' extra is not installed")


def _unit(seed, n, dim):
    x = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_recall_worked_by_hand():
    approx = np.array([[1, 2, 3], [4, -1, -1], [-1, -1, -1]])
    exact = np.array([[1, 3, 5], [4, 6, -1], [-1, -1, -1]])  # the last query has no truth: skipped
    assert recall_at_depth(approx, exact) == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert recall_at_depth(exact, exact) == 1.0


@needs_faiss
def test_recall_against_exact_search_is_high_and_results_are_ordered():
    docs, queries = _unit(0, 3000, 32), _unit(1, 60, 32)
    index = HNSWIndex(docs, M=16, ef=64)
    idx, val = index.search(queries, 10)
    exact_idx, exact_val = DenseIndex(docs).search(queries, 10)
    assert idx.shape == (60, 10) and val.dtype == np.float64
    assert recall_at_depth(idx, exact_idx) >= 0.95
    assert np.all(np.diff(val, axis=1) <= 0)
    found = exact_idx == idx  # where both agree, the scores are the same inner products
    np.testing.assert_allclose(val[found], exact_val[found], rtol=1e-5)


@needs_faiss
def test_same_vectors_same_graph_same_results():
    docs, queries = _unit(2, 800, 16), _unit(3, 20, 16)
    first = HNSWIndex(docs, M=8, ef=16).search(queries, 5)
    second = HNSWIndex(docs, M=8, ef=16).search(queries, 5)
    np.testing.assert_array_equal(first[0], second[0])


@needs_faiss
def test_small_corpus_padding_and_bad_settings():
    index = HNSWIndex(_unit(4, 3, 8))
    idx, val = index.search(_unit(5, 2, 8), 10)
    assert idx.shape == (2, 3) and sorted(idx[0].tolist()) == [0, 1, 2] and index.nbytes > 3 * 8 * 4
    with pytest.raises(ConfigError, match=r"retrieval.hnsw.M \(1\) must be an integer >= 2"):
        HNSWIndex(_unit(4, 3, 8), M=1)
