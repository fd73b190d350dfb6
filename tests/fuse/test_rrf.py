import numpy as np
import pytest

from rag_bench.retrieve.fusion.rrf import rrf


def test_rrf_scores_by_hand():
    bm25 = np.array([[7, 3, 5]])
    dense = np.array([[5, 9, 7]])
    idx, val = rrf([bm25, dense], k_rrf=60)
    expected = {7: 1 / 61 + 1 / 63, 5: 1 / 63 + 1 / 61, 3: 1 / 62, 9: 1 / 62}
    # 5 and 7 tie exactly: lower index first; 3 and 9 tie: 3 first
    assert idx[0].tolist() == [5, 7, 3, 9, -1, -1]
    assert val[0, :4] == pytest.approx([expected[5], expected[7], expected[3], expected[9]])


def test_weights_and_padding():
    idx, val = rrf([np.array([[1, -1]]), np.array([[2, 1]])], k_rrf=0, weights=[2.0, 1.0])
    assert idx[0].tolist() == [1, 2, -1, -1]
    assert val[0, 0] == pytest.approx(2 / 1 + 1 / 2) and val[0, 1] == pytest.approx(1.0)
