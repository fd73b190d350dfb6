"""Dense search's streaming top-k in C (rag_bench/index/_topk.c) and in numpy, against a full lexsort of each row."""

import numpy as np
import pytest

from rag_bench.index import compiled_topk, dense
from rag_bench.index.compiled_topk import CompiledTopK, streaming_top_k
from rag_bench.index.dense import DenseIndex
from rag_bench.index.topk import StreamingTopK

needs_topk = pytest.mark.skipif(not compiled_topk.built(), reason="the _topk C extension was not built")


@pytest.fixture(params=["numpy", pytest.param("c", marks=needs_topk)])
def path(request, monkeypatch):
    """Runs a test on numpy's StreamingTopK and again on the C one (``compiled_topk.TOPK``)."""
    monkeypatch.setattr(compiled_topk, "TOPK", compiled_topk.TOPK if request.param == "c" else None)
    return request.param


def lexsort_top(scores, depth):
    """The definition: each row's items sorted by (score descending, index ascending), the first depth kept."""
    n_rows, n_items = scores.shape
    indices = np.full((n_rows, depth), -1, np.int64)
    values = np.full((n_rows, depth), -np.inf)
    for row in range(n_rows):
        order = np.lexsort((np.arange(n_items), -scores[row]))[:depth]
        indices[row, : order.size] = order
        values[row, : order.size] = scores[row, order]
    return indices, values


def tied_vectors(seed, n, dim, copies):
    """Random vectors whose dot products are exact in float32 (multiples of 1/64 in [-1, 1]: every product a
    multiple of 1/4096, every sum far below 2**24 of them), with ``copies`` of them repeated at random rows, so
    that scores tie exactly whatever order a BLAS adds them in."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-64, 65, size=(n, dim)).astype(np.float32) / 64
    x[rng.integers(0, n, copies)] = x[rng.integers(0, n, copies)]
    return x


def test_the_c_path_is_the_one_dense_search_takes_when_built(path):
    best = streaming_top_k(3, 2)
    assert isinstance(best, CompiledTopK if path == "c" else StreamingTopK)


@pytest.mark.parametrize("depth", [1, 5, 20, 33])
@pytest.mark.parametrize("blocks", [(16, 24), (7, 5), (1024, 512)])
def test_dense_search_with_forced_ties_equals_a_lexsort_of_every_score(path, monkeypatch, depth, blocks):
    monkeypatch.setattr(dense, "QUERY_BLOCK", blocks[0])
    monkeypatch.setattr(dense, "CHUNK_BLOCK", blocks[1])
    docs, queries = tied_vectors(depth, 300, 12, copies=120), tied_vectors(depth + 1, 40, 12, copies=5)
    queries[3] = 0.0  # every score 0.0: the first depth chunks, in corpus order
    idx, val = DenseIndex(docs).search(queries, depth)
    scores = queries.astype(np.float64) @ docs.T.astype(np.float64)  # exact, so the same as float32's
    want_idx, want_val = lexsort_top(scores, depth)
    assert (scores[:, :, None] == scores[:, None, :]).sum() > 300 * 40 * 2  # ties beyond the diagonal
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_array_equal(val, want_val)
    assert idx[3].tolist() == list(range(depth)) and val.dtype == np.float64


@pytest.mark.parametrize("depth", [0, 1, 3, 16, 40, 150])
@pytest.mark.parametrize("widths", [[100], [1, 2, 3, 94], [17, 15, 16, 33, 19], [40, 0, 60]])
def test_streaming_equals_a_lexsort_over_any_tiles(path, depth, widths):
    rng = np.random.default_rng(depth + len(widths))
    scores = rng.integers(-3, 4, size=(30, 100)).astype(np.float32)
    scores[scores == 0] = np.float32(-0.0)  # -0.0 ties with 0.0, as comparisons say, and comes out as 0.0
    scores[::4, ::9] = 0.0
    scores[1, 50:] = -np.inf
    best = streaming_top_k(30, depth)
    first = 0
    for width in widths:
        best.push(scores[:, first : first + width], first)
        first += width
    idx, val = best.result()
    want_idx, want_val = lexsort_top(scores, min(depth, 100))
    width = min(depth, 100)
    np.testing.assert_array_equal(idx[:, :width], want_idx)
    np.testing.assert_array_equal(val[:, :width], want_val)
    assert (idx[:, width:] == -1).all() and (val[:, width:] == -np.inf).all()  # depth past the items: padded
    assert not np.signbit(val[val == 0]).any()


def test_ties_across_tiles_keep_the_lower_index_worked_by_hand(path):
    best = streaming_top_k(1, 3)
    best.push(np.array([[0.5, 0.75]], np.float32), 0)
    best.push(np.array([[0.75, 0.5]], np.float32), 2)
    idx, val = best.result()
    assert idx.tolist() == [[1, 2, 0]] and val.tolist() == [[0.75, 0.75, 0.5]]


@needs_topk
def test_the_c_module_refuses_buffers_of_the_wrong_shape():
    heap_s, heap_i, fill = np.empty((2, 3), np.float32), np.empty((2, 3), np.int64), np.zeros(2, np.int64)
    tile = np.zeros((2, 4), np.float32)
    module = compiled_topk._topk
    with pytest.raises(ValueError, match="n_rows \\(2\\) x width \\(5\\)"):
        module.push(tile, 5, 0, heap_s, heap_i, fill)
    with pytest.raises(ValueError, match="must hold n_rows"):
        module.push(tile, 4, 0, heap_s, np.empty((2, 2), np.int64), fill)
    with pytest.raises(ValueError, match="fill must be within \\[0, depth\\] \\(3\\)"):
        module.push(tile, 4, 0, heap_s, heap_i, np.array([0, 4], np.int64))
    with pytest.raises(ValueError, match="indices and scores"):
        module.finish(heap_s, heap_i, fill, np.empty((2, 3), np.int64), np.empty((2, 2)))
    with pytest.raises(TypeError):
        module.push(tile, 4, 0, heap_s.tobytes(), heap_i, fill)  # the heaps must be writable
