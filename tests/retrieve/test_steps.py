"""The helpers every post-retrieval step shares: the first entry of a key per row, compacting rows, units."""

import numpy as np
import pytest

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


def test_units_added_as_arrays_are_made_chunks_when_read():
    doc = Document("d", "alpha beta gamma")
    base = [Chunk("d", 0, 5, "alpha"), Chunk("d", 6, 10, "beta")]
    table = UnitTable(base, {"d": doc})
    arrays = (np.array([0, 0]), np.array([0, 6]), np.array([5, 10]))
    doc_of, start, end = np.array([0, 0, 0, 0]), np.array([6, 0, 11, 0]), np.array([10, 10, 16, 10])
    assert table.index_spans(["d"], doc_of, start, end, arrays).tolist() == [1, 2, 3, 2]
    chunks = table.chunks()
    assert not any(table.added.made)  # nothing made before a unit is read
    assert chunks[3] == Chunk("d", 11, 16, "gamma") and chunks[np.int64(-2)] == Chunk("d", 0, 10, "alpha beta")
    assert [c is not None for c in table.added.made] == [True, True]
    assert len(chunks) == 4 and chunks == [*base, Chunk("d", 0, 10, "alpha beta"), Chunk("d", 11, 16, "gamma")]
    assert chunks[1:3] == [base[1], Chunk("d", 0, 10, "alpha beta")] and list(chunks)[0] is base[0]
    with pytest.raises(IndexError):
        chunks[4]
    assert table.index("d", 0, 16) == 4 and table.chunks()[4].text == "alpha beta gamma"  # then one more, by span
