"""Every registered retriever, found in the registry, on a tiny corpus: valid, ordered, cached lists."""

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Chunk, Dataset, Document, Question
from rag_bench.core.workspace import Workspace
from rag_bench.retrieve.base import Corpus, Query
from rag_bench.retrieve.registry import RETRIEVERS
from rag_bench.retrieve.resources import Resources
from rag_bench.testing import FakeEmbedder

TEXTS = ["cats purr and nap", "dogs bark at night", "the audit fee rose", "revenue fell in May", "cats and dogs"]
DOCS = tuple(Document(f"d{i}", t) for i, t in enumerate(TEXTS))
QUESTIONS = (Question("q1", "why do cats purr"), Question("q2", "what did the audit fee do"))


def resources(tmp_path) -> Resources:
    chunks = [Chunk(d.id, 0, len(d.text), d.text) for d in DOCS]
    ws = Workspace(DiskCache(tmp_path))
    return Resources(ws, Corpus(digest("tiny", TEXTS), chunks), Dataset("tiny", DOCS, QUESTIONS), FakeEmbedder(16))


@pytest.mark.parametrize("mode", sorted(RETRIEVERS))
def test_every_retriever_ranks_valid_chunks_best_first_and_caches(tmp_path, mode):
    try:
        retriever = RETRIEVERS.build(RETRIEVERS.settings(mode), resources(tmp_path))
    except ConfigError as exc:  # a retriever that needs settings of its own (a run file, a URL, ...)
        pytest.skip(f"retrieval={mode} needs settings: {exc}")
    queries = [Query.of(q) for q in QUESTIONS]
    found = retriever.retrieve(queries, 3)
    assert found.indices.shape[0] == len(queries) and found.indices.shape == found.scores.shape
    assert ((found.indices >= -1) & (found.indices < len(found.chunks))).all()
    both = (found.indices[:, :-1] >= 0) & (found.indices[:, 1:] >= 0)
    assert (found.scores[:, :-1] >= found.scores[:, 1:])[both].all()
    assert not ((found.indices[:, :-1] < 0) & (found.indices[:, 1:] >= 0)).any()  # padding only at the end
    again = RETRIEVERS.build(RETRIEVERS.settings(mode), resources(tmp_path)).retrieve(queries, 3)
    np.testing.assert_array_equal(again.indices, found.indices)


def test_bm25_ranks_the_matching_chunk_first(tmp_path):
    found = RETRIEVERS.build(RETRIEVERS.settings("bm25"), resources(tmp_path)).retrieve([Query.of(QUESTIONS[1])], 2)
    assert found.chunks[found.indices[0, 0]].doc_id == "d2"
