"""embedder=openai: the real ``openai`` client against the fake OpenAI-compatible server on 127.0.0.1."""

import base64
import json
import time

import numpy as np
import pytest

from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.embed.base import normalise
from rag_bench.embed.openai import decode_embeddings
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.remote.http import MalformedAnswer
from rag_bench.testing import FakeEmbedder
from rag_bench.testing.fake_api import Fault
from rag_bench.testing.openai_server import FakeOpenAIServer

KEY = "sk-test-7f3a9c21"
ROUTE = "/v1/embeddings"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(api_key=KEY) as fake:
        yield fake


def embedder(server, **overrides):
    settings = {"base_url": server.url + "/v1", "backoff_s": 0.01, "timeout_s": 5.0, **overrides}
    return EMBEDDERS.build(EMBEDDERS.settings("openai", **settings))


def test_texts_model_and_key_go_out_and_vectors_come_back_in_order(server):
    model = embedder(server, model="text-embedding-3-large")
    texts = [f"audit fee {i}" for i in range(5)]
    vectors = model.embed(texts, "document")
    (sent,) = server.received(ROUTE)
    assert sent.texts == texts and sent.body["model"] == "text-embedding-3-large"
    assert sent.authorization == f"Bearer {KEY}" and "dimensions" not in sent.body
    np.testing.assert_allclose(vectors, FakeEmbedder(3072).embed(texts), atol=1e-6)
    assert model.dimension == 3072 and model.name.endswith("/v1/text-embedding-3-large@3072")
    assert model.max_tokens == 8191  # OpenAI's input limit, for the truncation count


def test_a_smaller_dimension_of_a_matryoshka_model_is_cut_from_the_native_vector(server):
    model = embedder(server, dimension=256)  # text-embedding-3-small: embed at 1536 once, the pipeline truncates
    assert model.matryoshka and model.dimension == 1536
    model.embed(["a b"], "query")
    assert "dimensions" not in server.received(ROUTE)[0].body


def test_dimensions_are_sent_for_other_models(server):
    server.models["custom-embed"] = (1024, True)
    model = embedder(server, model="custom-embed", dimension=64)
    assert model.embed(["a b"], "document").shape == (1, 64)
    assert server.received(ROUTE)[-1].body["dimensions"] == 64


def test_a_model_rag_bench_does_not_know_is_sized_by_one_probe_and_gets_its_prefixes(server):
    model = embedder(server, model="nomic-embed-text")
    assert model.dimension == 768 and len(server.received(ROUTE)) == 1  # the probe
    model.embed(["why?"], "query")
    model.embed(["a passage"], "document")
    assert [r.texts for r in server.received(ROUTE)[1:]] == [["search_query: why?"], ["search_document: a passage"]]


def test_batches_hold_at_most_batch_size_and_at_most_concurrency_run_at_once(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(api_key=KEY, delay_s=0.2) as server:
        texts = [f"text {i}" for i in range(50)]
        vectors = embedder(server, batch_size=10, concurrency=3).embed(texts, "document")
        assert sorted(len(r.texts) for r in server.received(ROUTE)) == [10] * 5
        assert server.max_in_flight == 3
    np.testing.assert_allclose(vectors, FakeEmbedder(1536).embed(texts), atol=1e-6)


@pytest.mark.parametrize(
    "fault", [Fault("429", retry_after="0.2"), "500", "503", "reset", "malformed", Fault("slow", 2.0)]
)
def test_each_transient_fault_is_retried_once(server, fault):
    model = embedder(server, timeout_s=0.5)
    server.inject(fault)
    vectors = model.embed(["net revenue", "audit fee"], "document")
    kind = fault if isinstance(fault, str) else fault.kind
    assert [r.outcome for r in server.received(ROUTE)] == [kind, "200"]
    assert model.usage.requests == 2 and model.usage.retries == 1 and model.usage.texts == 2
    np.testing.assert_allclose(vectors, FakeEmbedder(1536).embed(["net revenue", "audit fee"]), atol=1e-6)


def test_retry_after_is_honoured(server):
    server.inject(Fault("429", retry_after="1"))
    embedder(server).embed(["a"], "query")
    first, second = server.received(ROUTE)
    assert second.at - first.at >= 1.0  # not the 0.01 s backoff


def test_a_server_that_is_down_fails_in_bounded_time_with_what_was_cached(server):
    model = embedder(server, max_retries=2)
    model.embed(["first batch"], "document")
    server.stop()
    start = time.monotonic()
    with pytest.raises(ServiceError) as caught:
        model.embed(["second batch"], "document")
    assert time.monotonic() - start < 5
    message = str(caught.value)
    assert "connection failed" in message and "(3 attempts in" in message and "1 texts were embedded" in message
    assert KEY not in message


def test_a_wrong_key_names_the_variable_and_is_not_shown(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-51d0")
    with FakeOpenAIServer(api_key=KEY) as server:
        with pytest.raises(
            ConfigError, match="refused the key in OPENAI_API_KEY.*set OPENAI_API_KEY to a valid key"
        ) as caught:
            embedder(server, dimension=1536).embed(["a"], "document")
        assert len(server.received(ROUTE)) == 1 and "sk-wrong-51d0" not in str(caught.value)


def test_a_model_the_server_does_not_serve_names_embedder_model(server):
    with pytest.raises(
        ConfigError,
        match=r"HTTP 404: The model `no-such-model` does not exist; the server does not serve embedder.model",
    ):
        embedder(server, model="no-such-model")


def test_a_dimension_the_model_does_not_take_names_embedder_dimension(server):
    with pytest.raises(ConfigError, match=r"does not support specifying dimensions; embedder.dimension is not a size"):
        embedder(server, model="text-embedding-ada-002", dimension=512).embed(["a"], "document")


def test_a_missing_key_is_a_config_error_before_any_request(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(
        ConfigError, match="environment variable OPENAI_API_KEY: set it, or set embedder.api_key_env=null"
    ):
        embedder(server)
    assert server.requests == []


def test_azure_style_key_header_and_extra_headers(server, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
    server.key_header = "api-key"
    model = embedder(server, api_key_env="AZURE_OPENAI_API_KEY", key_header="api-key", headers={"x-team": "search"})
    model.embed(["a"], "document")
    sent = server.received(ROUTE)[-1]
    assert sent.headers["api-key"] == KEY and sent.headers["x-team"] == "search"
    with pytest.raises(ConfigError, match="embedder.headers.Authorization would carry the key"):
        EMBEDDERS.settings("openai", headers={"Authorization": "Bearer x"})


def test_tokens_come_from_the_answers_and_cost_from_the_price_table(server):
    model = embedder(server)
    model.embed(["net revenue rose", "audit fee"], "document")  # 3 + 2 tokens as the fake counts
    assert model.usage.tokens == 5 and model.usage.price_per_million == 0.02  # configs/prices.yaml
    assert model.estimated_cost_usd == pytest.approx(5 * 0.02 / 1e6)


def test_an_announced_rate_limit_paces_the_requests(monkeypatch):
    """600 requests a minute, a bucket of 2: after the first answers, requests wait their turn instead of 429s."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(api_key=KEY, rate_limit=600, burst=2) as server:
        model = embedder(server, batch_size=1, concurrency=4)
        model.embed([f"t {i}" for i in range(16)], "document")
        refused = len(server.received(ROUTE, outcome="429"))
        assert len(server.received(ROUTE, outcome="200")) == 16 and refused <= 4
        assert model.pacer.per_minute == {"requests": 600}


def test_vectors_are_bit_identical_to_the_official_clients_own_parse(server):
    import openai

    texts = [f"the audit fee of unit {i} rose by {i}.{i} percent" for i in range(9)]
    vectors = embedder(server, batch_size=4).embed(texts, "document")
    assert all(r.body["encoding_format"] == "base64" for r in server.received(ROUTE))
    client = openai.OpenAI(api_key=KEY, base_url=server.url + "/v1")
    parsed = client.embeddings.create(input=texts, model="text-embedding-3-small").data  # the client decodes
    assert vectors.tobytes() == normalise(np.asarray([d.embedding for d in parsed], np.float32)).tobytes()


def test_float_lists_from_a_server_that_ignores_encoding_format_are_read_too():
    answer = {"data": [{"index": 1, "embedding": [0.5, -0.25]}, {"index": 0, "embedding": [1.0, 2.0]}]}
    vectors, tokens = decode_embeddings(json.dumps({**answer, "usage": {"total_tokens": 7}}).encode(), 2)
    assert vectors.tolist() == [[1.0, 2.0], [0.5, -0.25]] and vectors.dtype == np.float32 and tokens == 7
    encoded = base64.b64encode(np.array([3.0, -1.5], "<f4").tobytes()).decode()
    vectors, tokens = decode_embeddings(json.dumps({"data": [{"index": 0, "embedding": encoded}]}).encode(), 1)
    assert vectors.tolist() == [[3.0, -1.5]] and tokens == 0  # no usage: nothing billed


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b'{"data": [{"index": 0, "embedding": [1.0]}]}',  # one row for two texts
        b'{"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [2.0]}]}',  # an index repeated
        b'{"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": [2.0, 3.0]}]}',  # unequal rows
        b'{"data": [{"index": 0, "embedding": "AAA"}, {"index": 1, "embedding": "AAA"}]}',  # not float32 bytes
        b'{"vectors": []}',
    ],
)
def test_a_malformed_answer_is_named_so_and_retried(content):
    with pytest.raises(MalformedAnswer):
        decode_embeddings(content, 2)
