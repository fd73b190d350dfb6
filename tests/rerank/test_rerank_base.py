import numpy as np

from rag_bench.rerank.base import rerank
from rag_bench.testing import FakeReranker

PASSAGES = ["apple pie", "banana split", "apple banana", "cherry", "apple banana cherry"]


def test_head_is_reordered_tail_follows_and_ties_break_by_chunk_order():
    ranked = np.array([[3, 0, 1, 2, 4]])
    out, scores = rerank(ranked, ["apple banana"], PASSAGES, FakeReranker(), depth=3)
    # head [3, 0, 1] scores 0, 0.5, 0.5 -> 0 and 1 tie at 0.5: lower chunk index first; tail keeps order
    assert out.tolist() == [[0, 1, 3, 2, 4]]
    assert scores[0, :3].tolist() == [0.5, 0.5, 0.0] and np.isneginf(scores[0, 3:]).all()


def test_keep_cuts_the_list_after_reranking():
    ranked = np.array([[3, 0, 1, 2, 4], [4, -1, -1, -1, -1]])
    out, _ = rerank(ranked, ["apple banana", "cherry"], PASSAGES, FakeReranker(), depth=5, keep=2)
    assert out.tolist() == [[2, 4, -1, -1, -1], [4, -1, -1, -1, -1]]
