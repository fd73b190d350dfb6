"""The helpers every post-retrieval step shares: the first entry of a key per row, compacting rows, units."""

import numpy as np

from rag_bench.core.types import Chunk, Document
from rag_bench.retrieve.base import Candidates
from rag_bench.retrieve.steps import UnitTable, compact, first_in_row, mean_chars


def test_first_in_row_by_hand():
    keys = np.array([[5, 3, 5, -1], [3, 3, 7, 5], [-1, -1, -1, -1]])
    assert first_in_row(keys).tolist() == [
        [True, True, False, False],
        [True, False, True, True],
        [False, False, False, False],
    ]


def test_compact_keeps_order_and_pads():
    indices = np.array([[4, 2, 9, 1]])
    scores = np.array([[0.9, 0.8, 0.7, 0.6]])
    out, values = compact(indices, scores, np.array([[False, True, False, True]]))
    assert out.tolist() == [[2, 1, -1, -1]] and values[0, :2].tolist() == [0.8, 0.6]
    assert np.isneginf(values[0, 2:]).all()


def test_unit_table_reuses_a_chunk_of_equal_span_and_adds_each_unit_once():
    doc = Document("d", "alpha beta gamma")
    base = [Chunk("d", 0, 5, "alpha"), Chunk("d", 6, 10, "beta")]
    table = UnitTable(base, {"d": doc})
    assert table.index("d", 6, 10) == 1 and table.chunks() is base  # nothing added: the base table itself
    assert table.index("d", 0, 10) == 2 and table.index("d", 0, 10) == 2
    assert table.chunks()[2] == Chunk("d", 0, 10, "alpha beta") and len(table.chunks()) == 3


def test_mean_chars_of_the_top_k():
    chunks = [Chunk("d", 0, 5, "alpha"), Chunk("d", 6, 10, "beta"), Chunk("d", 0, 16, "alpha beta gamma")]
    found = Candidates(chunks, np.array([[2, 0, 1], [1, -1, -1]]), np.zeros((2, 3)))
    assert mean_chars(found, 2) == (16 + 5 + 4) / 2
