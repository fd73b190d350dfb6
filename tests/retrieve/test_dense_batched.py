"""Dense retrieval searches every question in one batch: the same rankings as one search per question,
ties broken by corpus order, and per-query latency timed on a labelled sample."""

import numpy as np

from rag_bench.core.filters import MetadataTable, parse_filter
from rag_bench.embed.fake import FakeEmbedder
from rag_bench.index.dense import DenseIndex
from rag_bench.retrieve.dense import LATENCY_MIN, LATENCY_SAMPLE, sampled_latency, search_all
from tests.retrieve.conftest import QUESTIONS, write_dataset


def _one_by_one(index: DenseIndex, queries: np.ndarray, depth: int, filters: list) -> tuple[np.ndarray, np.ndarray]:
    """The code before batching: each query searched on its own, rows stacked."""
    rows = [index.search(queries[i : i + 1], depth, filters[i : i + 1]) for i in range(len(queries))]
    return np.concatenate([r[0] for r in rows]), np.concatenate([r[1] for r in rows])


def test_batched_search_breaks_ties_by_corpus_order_worked_by_hand():
    # chunks 0 and 2 are the same vector: query [1, 0] scores them 1, 0, 1, 0.6; the tie goes to chunk 0
    docs = np.array([[1, 0], [0, 1], [1, 0], [0.6, 0.8]], np.float32)
    queries = np.array([[1, 0], [0, 1]], np.float32)
    indices, scores = DenseIndex(docs).search(queries, 3)
    assert indices.tolist() == [[0, 2, 3], [1, 3, 0]]
    assert np.allclose(scores, [[1, 1, 0.6], [1, 0.8, 0]])


def test_batched_search_equals_one_search_per_query_with_ties_and_filters():
    # Small-integer vectors: every dot product is exact in float32 whatever the summation order, so the
    # batched and single-query products agree to the bit and ties (many here) must break the same way.
    rng = np.random.default_rng(7)
    docs = rng.integers(-2, 3, size=(3000, 16)).astype(np.float32)
    docs[1000:1100] = docs[:100]  # exact duplicates: tied scores for every query
    queries = rng.integers(-2, 3, size=(300, 16)).astype(np.float32)
    groups = [{"team": ["a", "b", "c"][i % 3]} for i in range(len(docs))]
    index = DenseIndex(docs, MetadataTable(groups))
    team_a, not_c = parse_filter({"team": "a"}), parse_filter({"team": {"$nin": ["c"]}})
    filters = [[None, team_a, not_c][i % 3] for i in range(len(queries))]
    for depth in (1, 20, 100):
        batched = index.search(queries, depth, filters)
        single = _one_by_one(index, queries, depth, filters)
        assert np.array_equal(batched[0], single[0]) and np.array_equal(batched[1], single[1])
        ties = (np.diff(batched[1], axis=1) == 0).sum()
        assert depth == 1 or ties > 0  # the comparison did meet ties
    allowed_a = {i for i in range(len(docs)) if i % 3 == 0}
    assert set(batched[0][1].tolist()) <= allowed_a  # query 1 carries team=a


def test_batched_search_ranks_float_vectors_like_one_search_per_query():
    rng = np.random.default_rng(11)
    docs = rng.standard_normal((5000, 64), dtype=np.float32)
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    queries = rng.standard_normal((200, 64), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    index = DenseIndex(docs)
    batched, single = index.search(queries, 20), _one_by_one(index, queries, 20, [None] * len(queries))
    assert np.array_equal(batched[0], single[0])
    assert np.abs(batched[1] - single[1]).max() <= 1e-6  # the matrix-product kernel may round differently
    exact = (queries.astype(np.float64) @ docs.astype(np.float64).T).argsort(axis=1, kind="stable")[:, ::-1][:, :20]
    assert np.array_equal(batched[0], exact)


def test_latency_is_timed_on_an_evenly_spaced_sample():
    docs = np.eye(4, dtype=np.float32)
    searched: list[int] = []

    class Recording(DenseIndex):
        def search(self, queries, depth, filters=None):
            searched.append(int(np.flatnonzero(queries[0])[0]) if len(queries) == 1 else -len(queries))
            return super().search(queries, depth, filters)

    index = Recording(docs)
    queries = np.eye(4, dtype=np.float32)[np.arange(1000) % 4]
    seconds = sampled_latency(index, queries, 2, [None] * 1000)
    assert seconds.shape == (LATENCY_SAMPLE,) and (seconds > 0).all()
    rows = np.linspace(0, 999, LATENCY_SAMPLE).astype(int)  # 0, 15, 31, ... 999: one query each
    assert sorted(searched) == sorted((rows % 4).tolist())  # each sampled row once (in a shuffled order)
    assert sampled_latency(index, queries[:3], 2, [None] * 3).shape == (3,)  # fewer questions: all of them
    searched.clear()
    spent = sampled_latency(index, queries, 2, [None] * 1000, budget_s=0.0)  # budget spent at once: the minimum
    assert spent.shape == (LATENCY_MIN,) and len(searched) == LATENCY_MIN


def test_a_dense_run_searches_in_one_batch_and_labels_its_latency_sample(tmp_path, run_with):
    questions = [{**q, "id": f"{q['id']}-{i}"} for i in range(30) for q in QUESTIONS]  # 90 questions
    from tests.retrieve.conftest import DOCUMENTS

    data = write_dataset(tmp_path / "many", DOCUMENTS, questions)
    result = run_with(f"dataset.path={data}", "retrieval=dense", "chunker.size=40", "chunker.overlap=0")
    report = result.stats.index
    assert LATENCY_MIN <= report["latency_sample"] <= LATENCY_SAMPLE and "queries" not in report
    assert 0 < report["latency_ms_p50"] <= report["latency_ms_p95"]
    # the run's rankings equal one exact search per question over the same hashing vectors
    embedder = FakeEmbedder(64)
    docs = embedder.embed([c.indexed_text for c in result.chunks], "document")
    queries = embedder.embed([q["question"] for q in questions], "query")
    depth = result.stages["dense"].indices.shape[1]
    expected = _one_by_one(DenseIndex(docs), queries, depth, [None] * len(questions))[0]
    assert np.array_equal(result.stages["dense"].indices, expected)


def test_truncated_chunks_are_counted_only_when_a_chunk_could_exceed_the_limit(tmp_path, run_with, monkeypatch):
    from tests.retrieve.conftest import DOCUMENTS

    data = write_dataset(tmp_path / "tiny", DOCUMENTS, QUESTIONS)
    counted: list[int] = []
    real = FakeEmbedder.count_tokens
    monkeypatch.setattr(
        FakeEmbedder, "count_tokens", lambda self, texts: counted.append(len(texts)) or real(self, texts)
    )
    result = run_with(f"dataset.path={data}", "retrieval=dense", "cache_dir=" + str(tmp_path / "c1"))
    assert result.stats.truncated == 0 and counted == []  # 10**9 tokens: no 100-character chunk can reach it
    monkeypatch.setattr(FakeEmbedder, "max_tokens", 5)
    result = run_with(f"dataset.path={data}", "retrieval=dense", "cache_dir=" + str(tmp_path / "c2"))
    words = [len(c.indexed_text.replace(".", " ").split()) for c in result.chunks]
    assert counted == [len(result.chunks)] and result.stats.truncated == sum(n > 5 for n in words) > 0


def test_a_database_index_searches_each_question_once_and_its_sample_is_the_runs_own_searches():
    from rag_bench.index.base import IndexReport

    class Database(DenseIndex):  # one logged statement per query, as pgvector and Chroma run them
        def __init__(self, vectors):
            super().__init__(vectors)
            self.log: list[int] = []

        def search(self, queries, depth, filters=None):
            self.log.extend(int(np.flatnonzero(q)[0]) for q in queries)
            return super().search(queries, depth, filters)

        def report(self):
            return IndexReport(0.0, True, None, "db.log", tuple(map(str, self.log)), {})

    docs = np.eye(100, dtype=np.float32)
    queries = np.eye(100, dtype=np.float32)[::-1]  # question i asks for chunk 99 - i
    index = Database(docs)
    indices, scores, latency, seconds = search_all(index, queries, 3, [None] * 100)
    assert sorted(index.log) == list(range(100))  # every question searched once, the sample included
    assert latency.shape == (LATENCY_SAMPLE,) and seconds >= latency.sum()
    assert indices[:, 0].tolist() == list(range(99, -1, -1)) and (scores[:, 0] == 1.0).all()
    assert np.array_equal(indices, DenseIndex(docs).search(queries, 3)[0])
