"""The Voyage reranker: the real ``voyageai`` client against the fake Voyage server on 127.0.0.1."""

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.core.workspace import Workspace
from rag_bench.rerank.base import rerank
from rag_bench.rerank.registry import RERANKERS
from rag_bench.rerank.remote import RemoteReranker
from rag_bench.testing.voyage_server import FakeVoyageServer, Fault

KEY = "pa-test-key-0c4a9d"
RERANK = "/v1/rerank"
PASSAGES = ["audit fee rose", "revenue fell", "the audit", "fee schedule", "nothing here", "audit fee audit"]


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    monkeypatch.delenv("VOYAGE_API_KEY_PATH", raising=False)
    with FakeVoyageServer(api_key=KEY) as fake:
        yield fake


def reranker(server, cache_dir, **overrides) -> RemoteReranker:
    settings = {"model": "rerank-2.5", "base_url": server.url, "backoff_s": 0.01, "timeout_s": 5.0}
    return RERANKERS.build(RERANKERS.settings("voyage", **{**settings, **overrides}), Workspace(DiskCache(cache_dir)))


def test_scores_come_back_in_passage_order(server, tmp_path):
    scores = reranker(server, tmp_path).score("audit fee", PASSAGES)
    # the fake scores a passage by the share of the question's words it holds
    np.testing.assert_allclose(scores, [1.0, 0.0, 0.5, 0.5, 0.0, 1.0])
    (sent,) = server.received(RERANK)
    assert sent.body["query"] == "audit fee" and sent.texts == PASSAGES and sent.body["model"] == "rerank-2.5"


def test_depth_candidates_are_sent_and_reordered(server, tmp_path):
    ranked = np.array([[4, 1, 2, 0, 3], [0, 1, -1, -1, -1]])
    out, scores = rerank(ranked, ["audit fee", "revenue"], PASSAGES, reranker(server, tmp_path), depth=3)
    assert [len(r.texts) for r in server.received(RERANK)] == [3, 2]
    assert out[0].tolist() == [2, 1, 4, 0, 3]  # 2 scores 0.5; 4 and 1 tie at 0: corpus order; 0, 3 untouched
    assert out[1][:2].tolist() == [1, 0] and scores[1][0] == 1.0


def test_a_deep_pass_serves_every_shallower_depth_from_the_cache(server, tmp_path):
    deep = reranker(server, tmp_path)
    deep.score("audit fee", PASSAGES[:4])
    deep.score("audit fee", PASSAGES[:2])  # shallower: nothing sent
    deep.score("audit fee", PASSAGES)  # deeper: only the two new passages are sent
    assert [r.texts for r in server.received(RERANK)] == [PASSAGES[:4], PASSAGES[4:]]
    assert deep.usage.cached == 2 + 4 and deep.usage.texts == 6
    later = reranker(server, tmp_path)  # a new run, same cache folder
    np.testing.assert_allclose(later.score("audit fee", PASSAGES[::-1]), [1.0, 0.0, 0.5, 0.5, 0.0, 1.0][::-1])
    assert len(server.received(RERANK)) == 2 and later.usage.requests == 0
    reranker(server, tmp_path, model="rerank-2.5-lite").score("audit fee", PASSAGES[:1])  # another model
    assert server.received(RERANK)[-1].body["model"] == "rerank-2.5-lite"


def test_prefetch_runs_questions_concurrently_then_scores_are_cached(monkeypatch, tmp_path):
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    with FakeVoyageServer(api_key=KEY, delay_s=0.2) as server:
        model = reranker(server, tmp_path, concurrency=3)
        questions = [f"question {i}" for i in range(6)]
        model.prefetch([*questions, questions[0]], [PASSAGES] * 7)  # a repeated question is sent once
        assert len(server.received(RERANK)) == 6 and server.max_in_flight == 3
        model.score("question 2", PASSAGES[2:])
        assert len(server.received(RERANK)) == 6


def test_requests_split_at_one_thousand_documents(server, tmp_path):
    passages = [f"passage {i}" for i in range(1001)]
    scores = reranker(server, tmp_path).score("passage", passages)
    assert [len(r.texts) for r in server.received(RERANK)] == [1000, 1]
    np.testing.assert_allclose(scores, np.ones(1001))


def test_tokens_and_cost(server, tmp_path):
    model = reranker(server, tmp_path)
    model.score("audit fee", PASSAGES[:2])  # 2 query tokens x 2 documents + 3 + 2 document tokens
    assert model.usage.tokens == 9 and model.estimated_cost_usd == pytest.approx(9 * 0.05 / 1e6)
    assert model.usage.as_dict()["model"] == "rerank-2.5"


@pytest.mark.parametrize("fault", ["429", "500", "503", "reset"])
def test_transient_faults_are_retried(server, tmp_path, fault):
    server.inject(Fault(fault, path=RERANK), times=2)
    model = reranker(server, tmp_path)
    np.testing.assert_allclose(model.score("audit fee", PASSAGES[:1]), [1.0])
    assert [r.outcome for r in server.received(RERANK)] == [fault, fault, "200"]
    assert model.usage.retries == 2


def test_gives_up_with_a_clear_error_and_keeps_what_was_cached(server, tmp_path):
    model = reranker(server, tmp_path, max_retries=1)
    model.score("first question", PASSAGES)
    server.inject("429", times=5)
    with pytest.raises(ServiceError) as caught:
        model.score("second question", PASSAGES)
    message = str(caught.value)
    assert "Voyage rerank (rerank-2.5) failed: HTTP 429 rate limited (2 attempts in" in message
    assert "1 questions were scored and cached" in message and KEY not in message
    reranker(server, tmp_path).score("first question", PASSAGES)
    assert len(server.received(RERANK)) == 3  # the first question came from the cache


def test_missing_key_or_model_is_a_config_error(server, monkeypatch, tmp_path):
    with pytest.raises(ConfigError, match="reranker.model must name a Voyage reranker"):
        reranker(server, tmp_path, model=None)
    monkeypatch.delenv("VOYAGE_API_KEY")
    with pytest.raises(ConfigError, match="reranker=voyage needs a Voyage AI API key"):
        reranker(server, tmp_path)
    assert server.requests == []
