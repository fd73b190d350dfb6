"""Every registered dense index, found in the registry: shapes, order, and agreement with exact search."""

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError
from rag_bench.index.base import IndexContext
from rag_bench.index.dense import DenseIndex
from rag_bench.index.hnsw import recall_at_depth
from rag_bench.index.registry import VECTOR_INDEXES

from .conftest import stop_embedded


def unit(rows: int, dim: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


DATABASES = ("chroma", "pgvector")  # indexes that start a real database: marked db
INDEXES = [pytest.param(name, marks=pytest.mark.db) if name in DATABASES else name for name in sorted(VECTOR_INDEXES)]


@pytest.fixture(params=INDEXES)
def built(request, tmp_path):
    docs, queries = unit(300, 16, 0), unit(12, 16, 1)
    entry = VECTOR_INDEXES[request.param]
    try:
        try:
            index = VECTOR_INDEXES.build(
                entry.schema(), docs, IndexContext(DiskCache(tmp_path), f"test-{request.param}")
            )
        except ConfigError as exc:  # an optional dependency this machine lacks
            pytest.skip(f"retrieval.index={request.param}: {exc}")
        yield request.param, entry, index, docs, queries
    finally:  # pgvector: the server this cache started (as root in pytest's mode-700 folders: a runtime folder)
        assert not stop_embedded(tmp_path)


def test_results_are_best_first_within_the_corpus(built):
    name, _, index, docs, queries = built
    indices, scores = index.search(queries, 10)
    assert indices.shape == scores.shape == (12, 10)
    assert ((indices >= 0) & (indices < len(docs))).all()
    assert (np.diff(scores, axis=1) <= 1e-6).all()
    np.testing.assert_allclose(scores, np.take_along_axis(queries @ docs.T, indices, axis=1), atol=1e-5)
    assert index.nbytes >= docs.nbytes


def test_exact_indexes_equal_exact_search_and_approximate_ones_come_close(built):
    name, entry, index, docs, queries = built
    exact, _ = DenseIndex(docs).search(queries, 10)
    found, _ = index.search(queries, 10)
    if entry.schema.approximate:
        assert recall_at_depth(found, exact) >= 0.8
    else:
        np.testing.assert_array_equal(found, exact)
