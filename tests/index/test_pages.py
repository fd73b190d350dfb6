"""Index builds allocate without numpy's huge-page request, and leave the setting as they found it."""

import numpy as np
import pytest

from rag_bench.index.bm25 import pages
from rag_bench.index.bm25.analyzers import get_analyzer
from rag_bench.index.bm25.index import BM25Index


@pytest.fixture
def switch():
    if pages._SET is None:
        pytest.skip("this numpy has no _set_madvise_hugepage")
    previous = pages._SET(True)
    yield pages._SET
    pages._SET(previous)


def test_the_request_is_off_inside_the_block_and_restored_after(switch):
    with pages.small_pages():
        assert switch(False) is False  # it was off (setting it again returns the value before)
    assert switch(True) is True  # on again, as before the block
    switch(False)
    with pages.small_pages():
        pass
    assert switch(False) is False  # a block never turns on what was off


def test_an_index_is_built_the_same_way_and_the_setting_survives_a_failure(switch):
    texts = ["INC-2023-Q4-011 broke the build", "the build passed", "ERR_4021 at v1.2"]
    index = BM25Index.from_texts(texts, get_analyzer("identifier"))
    assert switch(True) is True
    assert index.vocab["inc-2023-q4-011"] == 0 and index.doc_len.tolist() == [4, 3, 3]
    assert np.array_equal(index.scores(["build"]) > 0, [True, True, False])

    def broken(word):
        raise ValueError(f"cannot analyze {word!r}")

    with pytest.raises(ValueError, match="cannot analyze"):
        BM25Index.from_texts(texts, broken)  # fails inside the block
    assert switch(True) is True
