import numpy as np
import pytest

from rag_bench.index import dense
from rag_bench.index.dense import DenseIndex
from rag_bench.index.topk import top_k


def _exact_vectors(seed, n, dim):
    """Entries in {-1, 0, 1}: every dot product is a small exact integer, so ties abound."""
    return np.random.default_rng(seed).integers(-1, 2, size=(n, dim)).astype(np.float32)


def test_scores_worked_by_hand():
    docs = np.array([[1, 0], [0, 1], [0.6, 0.8]], np.float32)
    idx, val = DenseIndex(docs).search(np.array([[0.8, 0.6]], np.float32), 2)
    assert idx.tolist() == [[2, 0]]  # 0.6*0.8 + 0.8*0.6 = 0.96 beats 0.8
    assert val[0] == pytest.approx([0.96, 0.8]) and val.dtype == np.float64


@pytest.mark.parametrize("depth", [1, 10, 37])
def test_tiles_equal_the_whole_matrix_top_k_with_ties(monkeypatch, depth):
    monkeypatch.setattr(dense, "QUERY_BLOCK", 16)
    monkeypatch.setattr(dense, "CHUNK_BLOCK", 24)
    docs, queries = _exact_vectors(0, 300, 6), _exact_vectors(1, 50, 6)
    idx, val = DenseIndex(docs).search(queries, depth)
    want_idx, want_val = top_k(queries @ docs.T, depth)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_array_equal(val, want_val)


def test_depth_beyond_the_corpus_and_no_queries():
    docs = _exact_vectors(2, 5, 4)
    idx, _ = DenseIndex(docs).search(_exact_vectors(3, 2, 4), 9)
    assert idx.shape == (2, 5) and sorted(idx[0].tolist()) == [0, 1, 2, 3, 4]
    idx, val = DenseIndex(docs).search(np.zeros((0, 4), np.float32), 9)
    assert idx.shape == (0, 9) and val.shape == (0, 9)


def test_memory_mapped_vectors_are_not_copied(tmp_path):
    docs = _exact_vectors(4, 100, 8)
    np.save(tmp_path / "v.npy", docs)
    mapped = np.load(tmp_path / "v.npy", mmap_mode="r")
    index = DenseIndex(mapped)
    assert np.shares_memory(index.vectors, mapped) and index.nbytes == 100 * 8 * 4
    queries = _exact_vectors(5, 7, 8)
    np.testing.assert_array_equal(index.search(queries, 5)[0], DenseIndex(docs).search(queries, 5)[0])
