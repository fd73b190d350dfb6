"""reranker=cohere, jina (the /v1/rerank schema) and tei against their fake servers on 127.0.0.1: the same
score cache and retries as Voyage's (rerank/remote.py)."""

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.core.workspace import Workspace
from rag_bench.rerank.base import rerank
from rag_bench.rerank.registry import RERANKERS
from rag_bench.testing.cohere_server import FakeCohereServer
from rag_bench.testing.fake_api import Fault
from rag_bench.testing.openai_server import FakeOpenAIServer
from rag_bench.testing.tei_server import FakeTeiServer

PASSAGES = ["audit fee rose", "revenue fell", "the audit", "fee schedule", "nothing here", "audit fee audit"]
SCORES = [1.0, 0.0, 0.5, 0.5, 0.0, 1.0]  # the fakes score the share of the question's words a passage holds
KEY = "key-for-rerank-31f"
PROVIDERS = {
    "cohere": (lambda: FakeCohereServer(api_key=KEY), "/v2/rerank", lambda url: {"base_url": url}),
    "jina": (
        lambda: FakeOpenAIServer(api_key=KEY),
        "/v1/rerank",
        lambda url: {"base_url": url, "model": "bge-reranker-v2-m3"},
    ),
    "tei": (lambda: FakeTeiServer(max_client_batch_size=4), "/rerank", lambda url: {"base_url": url}),
}


@pytest.fixture(params=list(PROVIDERS))
def provider(request, monkeypatch):
    monkeypatch.setenv("CO_API_KEY", KEY)
    monkeypatch.setenv("JINA_API_KEY", KEY)
    make, route, settings = PROVIDERS[request.param]
    with make() as server:
        yield request.param, server, route, settings(server.url)


def build(provider, tmp_path, **overrides):
    name, server, _, settings = provider
    cfg = RERANKERS.settings(name, **{**settings, "backoff_s": 0.01, "timeout_s": 5.0, **overrides})
    return RERANKERS.build(cfg, Workspace(DiskCache(tmp_path)))


def test_scores_come_back_in_passage_order(provider, tmp_path):
    _, server, route, _ = provider
    np.testing.assert_allclose(build(provider, tmp_path).score("audit fee", PASSAGES), SCORES)
    assert sorted(t for r in server.received(route) for t in r.texts) == sorted(PASSAGES)


def test_one_deep_pass_serves_every_shallower_depth_and_keep_across_runs(provider, tmp_path):
    _, server, route, _ = provider
    ranked = np.array([[0, 1, 2, 3, 4, 5]])
    deep = build(provider, tmp_path)
    rerank(ranked, ["audit fee"], PASSAGES, deep, depth=6)
    sent = len(server.received(route))
    for depth, keep in [(6, 3), (4, None), (2, 1)]:
        out, _ = rerank(ranked, ["audit fee"], PASSAGES, build(provider, tmp_path), depth=depth, keep=keep)
        assert len(server.received(route)) == sent  # every cut-off from the cache, in new runs too
    assert out[0].tolist() == [0, -1, -1, -1, -1, -1]


@pytest.mark.parametrize("fault", [Fault("429", retry_after="0.1"), "500", "reset", "malformed", Fault("slow", 2.0)])
def test_each_transient_fault_is_retried_once(provider, tmp_path, fault):
    _, server, route, _ = provider
    model = build(provider, tmp_path, timeout_s=0.5)
    server.inject(fault)
    np.testing.assert_allclose(model.score("audit fee", PASSAGES[:3]), SCORES[:3])
    kind = fault if isinstance(fault, str) else fault.kind
    assert [r.outcome for r in server.received(route)] == [kind, "200"]


def test_a_server_that_is_down_says_how_far_it_got(provider, tmp_path):
    _, server, _, _ = provider
    model = build(provider, tmp_path, max_retries=1)
    model.score("audit fee", PASSAGES[:2])
    server.stop()
    with pytest.raises(ServiceError, match=r"connection.*1 questions were scored and cached"):
        model.score("revenue", PASSAGES[:2])


def test_cohere_bills_search_units_at_the_price_per_search(monkeypatch, tmp_path):
    monkeypatch.setenv("CO_API_KEY", KEY)
    with FakeCohereServer(api_key=KEY) as server:
        model = RERANKERS.build(RERANKERS.settings("cohere", base_url=server.url), Workspace(DiskCache(tmp_path)))
        model.score("audit fee", [f"fee {i}" for i in range(150)])  # one request, 2 search units
        assert model.usage.searches == 2 and model.estimated_cost_usd == pytest.approx(2 * 0.002)


def test_refusals_name_the_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("CO_API_KEY", "co-wrong-key")
    with FakeCohereServer(api_key=KEY) as server:
        ws = Workspace(DiskCache(tmp_path))
        with pytest.raises(ConfigError, match="refused the key in CO_API_KEY") as caught:
            RERANKERS.build(RERANKERS.settings("cohere", base_url=server.url), ws).score("q", ["a"])
        assert "co-wrong-key" not in str(caught.value)
        monkeypatch.setenv("CO_API_KEY", KEY)
        with pytest.raises(ConfigError, match="the server does not serve reranker.model"):
            RERANKERS.build(RERANKERS.settings("cohere", base_url=server.url, model="rerank-v9"), ws).score("q", ["a"])
    with (
        FakeOpenAIServer() as server,
        pytest.raises(ConfigError, match="The model `nope` does not exist; the server does not serve reranker.model"),
    ):
        settings = RERANKERS.settings("jina", base_url=server.url + "/v1", model="nope", api_key_env=None)
        RERANKERS.build(settings, ws).score("q", ["a"])
