"""Chroma as a VectorIndex: recall against exact search, a build reused by ef_search, an incomplete build redone."""

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError
from rag_bench.core.filters import MetadataTable, parse_filter
from rag_bench.index.base import IndexContext
from rag_bench.index.dense import DenseIndex
from rag_bench.index.hnsw import recall_at_depth
from rag_bench.index.registry import VECTOR_INDEXES

from .conftest import needs_chroma

pytestmark = [pytest.mark.db, needs_chroma]


def _unit(seed, n, dim=16):
    x = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_build_reuse_search_and_filters(tmp_path):
    docs, queries = _unit(0, 400), _unit(1, 20)
    metadata = MetadataTable([{"g": ["a", "b"] if i % 4 == 0 else ["c"]} for i in range(400)])
    context = IndexContext(DiskCache(tmp_path), "vectors", metadata, "meta")
    first = VECTOR_INDEXES.build(VECTOR_INDEXES["chroma"].schema(ef_search=100), docs, context)
    exact = DenseIndex(docs, metadata)
    found, scores = first.search(queries, 10)
    truth, truth_scores = exact.search(queries, 10)
    assert recall_at_depth(found, truth) >= 0.95
    same = found == truth
    np.testing.assert_allclose(scores[same], truth_scores[same], atol=1e-5)  # 1 - Chroma's ip distance
    flt = parse_filter({"g": "a"})
    filtered, _ = first.search(queries, 10, [flt] * 20)
    assert np.all(filtered[filtered >= 0] % 4 == 0)
    assert recall_at_depth(filtered, exact.search(queries, 10, [flt] * 20)[0]) >= 0.9
    again = VECTOR_INDEXES.build(VECTOR_INDEXES["chroma"].schema(ef_search=20), docs, context)  # a search setting only
    assert (first.report().built, again.report().built) == (True, False)
    assert again.report().build_seconds == first.report().build_seconds
    (again.folder / "complete.json").unlink()  # as if the build had been interrupted
    redone = VECTOR_INDEXES.build(VECTOR_INDEXES["chroma"].schema(ef_search=20), docs, context)
    assert redone.report().built is True
    log = "\n".join(redone.report().log)
    assert "create_collection" in log and "'ef_search': 20" in log


def test_ef_search_reaches_an_index_this_process_already_loaded(tmp_path):
    # Chroma reads ef_search when it loads the HNSW index; without the reload, the second index below would
    # silently search at the first one's ef_search (it did: the same lists, to the last digit)
    docs, queries = _unit(2, 3000, dim=32), _unit(3, 40, dim=32)
    context = IndexContext(DiskCache(tmp_path), "vectors", None, "meta")
    schema = VECTOR_INDEXES["chroma"].schema
    truth, _ = DenseIndex(docs).search(queries, 10)
    wide = VECTOR_INDEXES.build(schema(m=4, ef_construction=10, ef_search=400), docs, context).search(queries, 10)[0]
    narrow_index = VECTOR_INDEXES.build(schema(m=4, ef_construction=10, ef_search=10), docs, context)
    assert narrow_index.report().built is False  # the same build, searched at another setting
    narrow = narrow_index.search(queries, 10)[0]
    assert recall_at_depth(narrow, truth) < recall_at_depth(wide, truth)
    again = VECTOR_INDEXES.build(schema(m=4, ef_construction=10, ef_search=400), docs, context).search(queries, 10)[0]
    np.testing.assert_array_equal(again, wide)


def _chroma(tmp_path, metadata: list[dict]):
    """A Chroma index over ``len(metadata)`` random unit vectors, one per chunk with that metadata."""
    docs = _unit(4, len(metadata))
    context = IndexContext(DiskCache(tmp_path), "vectors", MetadataTable(metadata), f"meta-{len(metadata)}")
    return VECTOR_INDEXES.build(VECTOR_INDEXES["chroma"].schema(), docs, context), docs[:1]


def _allowed(index, query, flt: dict) -> set[int]:
    found, _ = index.search(query, 10, [parse_filter(flt)])
    return {int(i) for i in found[0] if i >= 0}


def test_integers_beyond_2_53_are_refused_never_compared_as_floats(tmp_path):
    # as floats, 2^53 + 1 and 2^53 are one number: the filter {"n": 2^53 + 1} let chunk 1 through (a leak)
    big = 2**53 + 1
    metadata = [{"n": big}, {"n": 2**53}, {"m": 2**53}, {"m": 2**53 - 1}, {"m": -(2**53)}, {"m": 1.5}]
    index, query = _chroma(tmp_path, metadata)
    beyond = "9007199254740993, an integer beyond 2\\^53"
    with pytest.raises(ConfigError, match=rf"cannot filter on metadata field 'n' \(filter .*\): it holds {beyond}"):
        index.search(query, 10, [parse_filter({"n": big})])
    with pytest.raises(ConfigError, match=r"cannot filter exactly with .*: 9007199254740993 is an integer beyond"):
        index.search(query, 10, [parse_filter({"m": {"$in": [1, big]}})])
    # up to 2^53 a float holds every integer: the answers are exact
    assert _allowed(index, query, {"m": 2**53}) == {2}
    assert _allowed(index, query, {"m": {"$gte": 2**53 - 1}}) == {2, 3}
    assert _allowed(index, query, {"m": {"$lt": -(2**53) + 1}}) == {4}
    assert _allowed(index, query, {"m": {"$lt": 2}}) == {4, 5}


def test_keys_chroma_refuses_are_left_out_and_a_filter_on_one_stops(tmp_path):
    odd = {"#tags": ["ops"], "$x": 1, "": "blank", "chroma:document": "d", "acl": "eng"}
    metadata = [odd if i % 2 else {"acl": "hr"} for i in range(6)]
    index, query = _chroma(tmp_path, metadata)  # Chroma refused the whole batch: "Invalid metadata at index 1"
    assert _allowed(index, query, {"acl": "eng"}) == {1, 3, 5}
    assert index.metadata[1] == {"acl": "eng"}
    with pytest.raises(ConfigError, match=r"cannot filter on metadata field '#tags' .*Chroma refuses the key '#tags'"):
        index.search(query, 10, [parse_filter({"#tags": "ops"})])
