"""embedder=tei: Text Embeddings Inference's own /embed against the fake TEI server on 127.0.0.1."""

import numpy as np
import pytest

from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.testing import FakeEmbedder
from rag_bench.testing.fake_api import Fault
from rag_bench.testing.tei_server import FakeTeiServer


def embedder(server, **overrides):
    settings = {"base_url": server.url, "backoff_s": 0.01, "timeout_s": 5.0, **overrides}
    return EMBEDDERS.build(EMBEDDERS.settings("tei", **settings))


def test_the_server_says_what_it_serves_and_its_family_prefix_is_applied():
    with FakeTeiServer(model_id="BAAI/bge-small-en-v1.5", dimension=48, max_client_batch_size=8) as server:
        model = embedder(server)
        assert [r.path for r in server.requests] == ["/info", "/embed"]  # the server's facts, then the size
        assert model.dimension == 48 and model.batch_size == 8 and model.max_tokens == 512
        assert model.name.startswith("tei/BAAI/bge-small-en-v1.5@48+prefix-")
        texts = [f"passage {i}" for i in range(20)]
        vectors = model.embed(texts, "document")
        query = model.embed(["fee?"], "query")
        sent = server.received("/embed")[1:]
        assert sorted(len(r.texts) for r in sent) == [1, 4, 8, 8] and sent[0].body["truncate"] is True
        assert sent[-1].texts == ["Represent this sentence for searching relevant passages: fee?"]
    np.testing.assert_allclose(vectors, FakeEmbedder(48).embed(texts), atol=1e-6)  # no document prefix for BGE
    assert query.shape == (1, 48)


@pytest.mark.parametrize("fault", [Fault("429", retry_after="0.1"), "500", "reset", "malformed", Fault("slow", 2.0)])
def test_each_transient_fault_is_retried_once(fault):
    with FakeTeiServer() as server:
        model = embedder(server, timeout_s=0.5)
        server.inject(fault)
        model.embed(["a b"], "document")
        kind = fault if isinstance(fault, str) else fault.kind
        assert [r.outcome for r in server.received("/embed")][1:] == [kind, "200"]


def test_refusals_and_a_server_that_is_down(monkeypatch):
    monkeypatch.setenv("TEI_KEY_FOR_TEST", "tei-secret")
    with FakeTeiServer(api_key="tei-secret") as server:
        with pytest.raises(ConfigError, match="refused the request \\(no key was sent\\).*embedder.api_key_env"):
            embedder(server)
        with pytest.raises(ConfigError, match="serves BAAI/bge-small-en-v1.5, not embedder.model=other"):
            embedder(server, model="other", api_key_env="TEI_KEY_FOR_TEST")
        assert server.requests[-1].authorization == "Bearer tei-secret"
        url = server.url
    with pytest.raises(ServiceError, match="TEI at embedder.base_url=.* did not answer: connection refused"):
        EMBEDDERS.build(EMBEDDERS.settings("tei", base_url=url, max_retries=1, backoff_s=0.01))
