import numpy as np

from rag_bench.index.dense import DenseIndex
from rag_bench.index.topk import top_k


def test_ties_break_by_lower_index_even_at_the_cut():
    scores = np.array([[0.5, 0.9, 0.5, 0.9, 0.5]])
    idx, val = top_k(scores, 3)
    assert idx.tolist() == [[1, 3, 0]] and val.tolist() == [[0.9, 0.9, 0.5]]


def test_padding_and_mask():
    idx, val = top_k(np.array([[3.0, 1.0, 2.0]]), 4, valid=np.array([[True, False, True]]))
    assert idx.tolist() == [[0, 2, -1, -1]] and val[0, 2] == -np.inf


def test_dense_search_matches_brute_force():
    rng = np.random.default_rng(0)
    docs = rng.normal(size=(200, 16)).astype(np.float32)
    queries = rng.normal(size=(30, 16)).astype(np.float32)
    idx, val = DenseIndex(docs).search(queries, 10)
    brute = queries @ docs.T
    for q in range(30):
        order = np.lexsort((np.arange(200), -brute[q]))[:10]
        assert idx[q].tolist() == order.tolist()
        np.testing.assert_allclose(val[q], brute[q, order], rtol=1e-6)
