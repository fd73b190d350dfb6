"""retrieval.filter_mode on a small corpus: pre searches the allowed chunks, post drops after, none ignores."""

import json

import numpy as np
import pytest

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.config.schema import Config, DatasetConfig
from rag_bench.core.errors import ConfigError
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.pipeline.run import run
from rag_bench.retrieve.registry import RETRIEVERS
from rag_bench.testing import FakeEmbedder

TOPICS = ["gateway reboot watchdog", "standby pay rota", "hotel mileage receipts", "token refresh logout"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    folder = tmp_path_factory.mktemp("filtered")
    docs, meta = [], []
    for i in range(12):
        words = " ".join(f"{TOPICS[i % 4]} note {i} item {j}." for j in range(6))
        docs.append({"id": f"d{i}", "text": words})
        meta.append({"acl": ["all"] if i % 3 else ["hr"], "n": i})
    with (folder / "documents.jsonl").open("w") as out:
        for d, m in zip(docs, meta, strict=True):
            out.write(json.dumps({**d, "metadata": m}) + "\n")
    questions = [
        {
            "id": "q0",
            "question": "gateway reboot watchdog",
            "evidence": [{"doc_id": "d4", "text": "note 4 item 0"}],
            "filter": {"acl": "all"},
        },
        {
            "id": "q1",
            "question": "standby pay rota",
            "evidence": [{"doc_id": "d5", "text": "note 5 item 1"}],
            "filter": {"n": {"$gte": 5, "$lt": 8}},
        },
        {"id": "q2", "question": "hotel mileage receipts", "evidence": [{"doc_id": "d6", "text": "note 6 item 2"}]},
    ]
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return folder


def _run(dataset, tmp_path, mode, **settings):
    cfg = Config(
        dataset=DatasetConfig(path=str(dataset)),
        chunker=CHUNKERS["fixed"].schema(size=120, overlap=0),
        embedder=EMBEDDERS["fake"].schema(),
        retrieval=RETRIEVERS.settings(mode, depth=6, **settings),
        cache_dir=str(tmp_path),
        ks=[1, 3, 6],
        budgets=[200],
    )
    return run(cfg)


def _allowed(result, q):
    flt = result.dataset.questions[q].filter
    docs = {d.id: d.metadata for d in result.dataset.documents}
    return np.array([flt is None or flt.matches(docs[c.doc_id]) for c in result.chunks])


@pytest.mark.parametrize("mode", ["dense", "bm25"])
def test_pre_post_none_against_an_oracle(dataset, tmp_path, mode):
    none = _run(dataset, tmp_path, mode, filter_mode="none")
    pre = _run(dataset, tmp_path, mode, filter_mode="pre")
    post = _run(dataset, tmp_path, mode, filter_mode="post")
    assert none.evaluation.summary["leak@6"].mean > 0  # the hr documents compete for q0
    for q in range(2):
        allowed = _allowed(none, q)
        unfiltered = [c for c in none.ranked[q] if c >= 0]
        assert [c for c in post.ranked[q] if c >= 0] == [c for c in unfiltered if allowed[c]]
        got = [c for c in pre.ranked[q] if c >= 0]
        assert all(allowed[got])
        if mode == "dense":  # oracle: exact inner products over the allowed chunks, ties by corpus order
            embedder = FakeEmbedder(EMBEDDERS["fake"].schema().dimension)
            docs = embedder.embed([c.indexed_text for c in pre.chunks])
            query = embedder.embed([pre.dataset.questions[q].text], "query")[0]
            scores = np.where(allowed, docs @ query, -np.inf)
            order = sorted(np.flatnonzero(allowed), key=lambda c: (-scores[c], c))[:6]
            assert got == order
        else:  # the allowed prefix of the full BM25 ranking equals the pre-filtered list
            assert got[: len(post.ranked[q][post.ranked[q] >= 0])] == [c for c in post.ranked[q] if c >= 0]
    for result in (pre, post):
        assert result.evaluation.summary["leak@6"].mean == 0.0
    np.testing.assert_array_equal(pre.ranked[2], none.ranked[2])  # an unfiltered question is untouched


def test_hybrid_fuses_filtered_lists(dataset, tmp_path):
    pre = _run(dataset, tmp_path, "hybrid", filter_mode="pre")
    assert pre.evaluation.summary["leak@6"].mean == 0.0
    for name in ("bm25", "dense"):
        part = pre.stages[name]
        for q in range(2):
            assert all(_allowed(pre, q)[[c for c in part.indices[q] if c >= 0]])


def test_filter_mode_is_checked():
    with pytest.raises(ConfigError, match=r"retrieval.filter_mode \('strict'\) must be one of: pre, post, none"):
        RETRIEVERS.settings("dense", filter_mode="strict")
