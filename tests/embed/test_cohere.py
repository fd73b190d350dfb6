"""embedder=cohere: the real ``cohere`` client (API v2) against the fake Cohere server on 127.0.0.1."""

import base64
import time

import numpy as np
import pytest

from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.embed.base import normalise
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.testing import FakeEmbedder
from rag_bench.testing.cohere_server import FakeCohereServer
from rag_bench.testing.fake_api import Fault

KEY = "co-test-22b8e0"
ROUTE = "/v2/embed"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("CO_API_KEY", KEY)
    with FakeCohereServer(api_key=KEY) as fake:
        yield fake


def embedder(server, **overrides):
    settings = {"base_url": server.url, "backoff_s": 0.01, "timeout_s": 5.0, **overrides}
    return EMBEDDERS.build(EMBEDDERS.settings("cohere", **settings))


def test_documents_and_questions_get_cohere_input_types(server):
    model = embedder(server, model="embed-english-v3.0")
    docs = model.embed(["The audit fee rose.", "Revenue fell"], "document")
    model.embed(["What was the audit fee?"], "query")
    sent = server.received(ROUTE)
    assert [r.body["input_type"] for r in sent] == ["search_document", "search_query"]
    # the first answer carries floats and base64; once they agree, base64 alone (cohere.py's docstring)
    assert [r.body["embedding_types"] for r in sent] == [["float", "base64"], ["base64"]]  # one after the other
    assert "output_dimension" not in sent[0].body
    assert sent[0].authorization == f"Bearer {KEY}"
    np.testing.assert_allclose(docs, FakeEmbedder(1024).embed(["The audit fee rose.", "Revenue fell"]), atol=1e-6)
    assert model.name == "cohere/embed-english-v3.0@1024" and model.max_tokens == 512


def test_embed_v4_smaller_dimensions_come_from_the_1536_vector(server):
    model = embedder(server, dimension=512)
    assert model.matryoshka and model.dimension == 1536
    model.embed(["a"], "document")
    assert server.received(ROUTE)[0].body["output_dimension"] == 1536


def test_batches_of_at_most_96(server):
    texts = [f"text {i}" for i in range(200)]
    embedder(server, model="embed-english-v3.0").embed(texts, "document")
    assert sorted(len(r.texts) for r in server.received(ROUTE)) == [8, 96, 96]


@pytest.mark.parametrize(
    "fault", [Fault("429", retry_after="0.2"), "500", "503", "reset", "malformed", Fault("slow", 2.0)]
)
def test_each_transient_fault_is_retried_once(server, fault):
    model = embedder(server, timeout_s=0.5)
    server.inject(fault)
    model.embed(["net revenue", "audit fee"], "document")
    kind = fault if isinstance(fault, str) else fault.kind
    assert [r.outcome for r in server.received(ROUTE)] == [kind, "200"]
    assert model.usage.requests == 2 and model.usage.retries == 1


def test_a_server_that_is_down_fails_in_bounded_time(server):
    model = embedder(server, max_retries=1)
    server.stop()
    start = time.monotonic()
    with pytest.raises(ServiceError, match=r"connection failed.*\(2 attempts in"):
        model.embed(["a"], "document")
    assert time.monotonic() - start < 5


def test_refusals_name_the_setting(monkeypatch, server):
    with pytest.raises(ConfigError, match="embedder.dimension \\(300\\) is not a size embed-v4.0 takes: one of 256"):
        embedder(server, dimension=300)
    with pytest.raises(ConfigError, match="model 'embed-v9' not found.*the server does not serve embedder.model"):
        embedder(server, model="embed-v9", dimension=1024).embed(["a"], "document")
    monkeypatch.setenv("CO_API_KEY", "co-wrong-9a")
    with pytest.raises(ConfigError, match="refused the key in CO_API_KEY") as caught:
        embedder(server).embed(["a"], "document")
    assert "co-wrong-9a" not in str(caught.value)
    monkeypatch.delenv("CO_API_KEY")
    with pytest.raises(
        ConfigError, match="embedder=cohere needs a Cohere API key: set the environment variable CO_API_KEY"
    ):
        embedder(server)


def test_tokens_and_cost(server):
    model = embedder(server)
    model.embed(["net revenue rose", "audit fee"], "document")
    assert model.usage.tokens == 5 and model.estimated_cost_usd == pytest.approx(5 * 0.12 / 1e6)


def test_base64_vectors_are_bit_identical_to_the_float_lists(server):
    texts = [f"the audit fee of unit {i} rose by {i}.{i} percent" for i in range(7)]
    model = embedder(server, model="embed-english-light-v3.0", batch_size=1, concurrency=1)
    vectors = model.embed(texts, "document")  # 7 requests: float and base64 until the first answer, then base64
    kinds = [r.body["embedding_types"] for r in server.received(ROUTE)]
    assert kinds[0] == ["float", "base64"] and kinds[-1] == ["base64"] and len(kinds) == 7
    assert all(k in (["float", "base64"], ["base64"]) for k in kinds)
    floats = cohere_client_floats(server, texts, "embed-english-light-v3.0")  # the official client's own parse
    assert vectors.dtype == np.float32 and vectors.tobytes() == normalise(floats).tobytes()


def test_base64_that_differs_from_the_floats_is_never_used(server, monkeypatch):
    from rag_bench.testing import cohere_server

    big_endian = [lambda vectors: [base64.b64encode(np.asarray(v, ">f4").tobytes()).decode() for v in vectors]]
    monkeypatch.setitem(cohere_server.ENCODE, "base64", big_endian[0])
    texts = ["audit fee", "net revenue", "fee schedule", "audit scope", "revenue growth"]
    vectors = embedder(server, model="embed-english-light-v3.0", batch_size=1, concurrency=1).embed(texts, "document")
    kinds = [r.body["embedding_types"] for r in server.received(ROUTE)]
    assert kinds[0] == ["float", "base64"] and kinds[-1] == ["float"] and ["base64"] not in kinds
    np.testing.assert_allclose(vectors, FakeEmbedder(384).embed(texts), atol=1e-6)


def cohere_client_floats(server, texts, model):
    import cohere

    client = cohere.ClientV2(api_key=KEY, base_url=server.url)
    answer = client.embed(texts=texts, model=model, input_type="search_document", embedding_types=["float"])
    return np.asarray(answer.embeddings.float_, dtype=np.float32)
