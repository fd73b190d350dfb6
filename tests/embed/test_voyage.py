"""The Voyage embedder: the real ``voyageai`` client against the fake Voyage server on 127.0.0.1."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import voyageai

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.embed.remote import RemoteEmbedder
from rag_bench.embed.store import stored_keys, text_key
from rag_bench.embed.voyage import voyage_embedder
from rag_bench.remote.usage import estimate_tokens, plan_batches
from rag_bench.testing import FakeEmbedder
from rag_bench.testing.voyage_server import FakeVoyageServer, Fault

KEY = "pa-test-key-5b7e1c"
EMBEDDINGS = "/v1/embeddings"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    monkeypatch.delenv("VOYAGE_API_KEY_PATH", raising=False)
    with FakeVoyageServer(api_key=KEY) as fake:
        yield fake


def embedder(server, **overrides) -> RemoteEmbedder:
    """A Voyage embedder that asks the API for exactly ``dimension`` (no Matryoshka reuse)."""
    settings = {"model": "voyage-3.5", "dimension": 256, "base_url": server.url, "backoff_s": 0.01, "timeout_s": 5.0}
    return voyage_embedder(EMBEDDERS.settings("voyage", **{**settings, **overrides}), KEY)


def words(n: int, prefix: str = "text") -> list[str]:
    return [f"{prefix} number {i}" for i in range(n)]


def test_documents_and_queries_each_get_their_input_type_and_dimension(server):
    model = embedder(server)
    docs = model.embed(["The audit fee rose.", "Revenue fell"], "document")
    query = model.embed(["What was the audit fee?"], "query")
    sent = server.received(EMBEDDINGS)
    assert [(r.body["input_type"], r.body["model"], r.body["output_dimension"]) for r in sent] == [
        ("document", "voyage-3.5", 256),
        ("query", "voyage-3.5", 256),
    ]
    assert sent[0].texts == ["The audit fee rose.", "Revenue fell"] and sent[0].authorization == f"Bearer {KEY}"
    assert sent[0].body["encoding_format"] == "base64"  # the client asks for base64 and decodes float32
    np.testing.assert_allclose(docs, FakeEmbedder(256).embed(["The audit fee rose.", "Revenue fell"]), atol=1e-6)
    assert query.shape == (1, 256) and query.dtype == np.float32
    assert model.name == "voyage/voyage-3.5@256" and model.dimension == 256


def test_null_dimension_sends_none_and_uses_the_native_size(server):
    model = embedder(server, dimension=None, model="voyage-3-large")
    assert model.embed(["a b"], "document").shape == (1, 1024)
    assert server.received(EMBEDDINGS)[0].body["output_dimension"] is None
    assert model.name == "voyage/voyage-3-large@1024"


def test_requests_hold_at_most_batch_size_texts_in_order(server):
    texts = words(300)
    vectors = embedder(server, batch_size=128).embed(texts, "document")
    sizes = sorted(len(r.texts) for r in server.received(EMBEDDINGS))
    assert sizes == [44, 128, 128]
    np.testing.assert_allclose(vectors, FakeEmbedder(256).embed(texts), atol=1e-6)  # rows stay in input order


def test_requests_respect_the_token_budget(server):
    # 29 ascii bytes -> 29 // 3 + 1 = 10 estimated tokens each; 30 per request -> 3 texts a request
    texts = [f"{i:02d}" + "x" * 27 for i in range(10)]
    assert {estimate_tokens(t) for t in texts} == {10}
    embedder(server, max_tokens_per_batch=30, concurrency=1).embed(texts, "document")
    assert sorted(len(r.texts) for r in server.received(EMBEDDINGS)) == [1, 3, 3, 3]  # 2 workers: any order


def test_plan_batches_by_count_and_cost():
    assert plan_batches([3, 3, 3, 5], max_items=2, max_cost=7) == [(0, 2), (2, 3), (3, 4)]
    assert plan_batches([9, 1], max_items=10, max_cost=5) == [(0, 1), (1, 2)]  # an item over budget goes alone
    assert plan_batches([], 5, 5) == []


def test_documented_token_limits_by_model(server):
    assert embedder(server, model="voyage-3.5-lite").request_tokens == 1_000_000
    assert embedder(server, model="voyage-4").request_tokens == 320_000
    assert embedder(server, model="voyage-4-large").request_tokens == 120_000
    assert embedder(server, model="some-new-model", dimension=512).request_tokens == 120_000  # unknown: smallest
    # per input, for the count of truncated chunks
    assert embedder(server, model="voyage-3.5").max_tokens == 32_000
    assert embedder(server, model="voyage-2", dimension=1024).max_tokens == 4_000


@pytest.mark.parametrize("concurrency", [1, 3])
def test_at_most_concurrency_requests_are_in_flight(monkeypatch, concurrency):
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    with FakeVoyageServer(api_key=KEY, delay_s=0.2) as server:
        embedder(server, batch_size=10, concurrency=concurrency).embed(words(60), "document")
        assert len(server.received(EMBEDDINGS)) == 6
        assert server.max_in_flight == concurrency


@pytest.mark.parametrize("fault", ["429", "500", "503", "reset", Fault("slow", delay_s=2.0)])
def test_each_transient_fault_is_retried_once(server, fault):
    model = embedder(server, timeout_s=0.3)
    server.inject(fault)
    vectors = model.embed(["net revenue", "audit fee"], "document")
    kind = fault if isinstance(fault, str) else "slow"
    assert [r.outcome for r in server.received(EMBEDDINGS)] == [kind, "200"]
    assert model.usage.requests == 2 and model.usage.retries == 1 and model.usage.texts == 2
    np.testing.assert_allclose(vectors, FakeEmbedder(256).embed(["net revenue", "audit fee"]), atol=1e-6)


def test_retry_after_is_honoured(server):
    server.inject(Fault("429", retry_after="1"))
    embedder(server, backoff_s=0.01).embed(["a"], "query")
    first, second = server.received(EMBEDDINGS)
    assert first.outcome == "429" and second.outcome == "200"
    assert second.at - first.at >= 1.0  # not the 0.01 s backoff


def test_gives_up_after_max_retries_and_says_how_much_was_cached(server):
    model = embedder(server, max_retries=2)
    model.embed(words(64), "document")  # the pipeline commits this batch to the cache
    server.inject("503", times=10)
    with pytest.raises(ServiceError) as caught:
        model.embed(words(64, "more"), "document")
    message = str(caught.value)
    assert len(server.received(EMBEDDINGS, outcome="503")) == 3  # 1 try + 2 retries
    assert "HTTP 503 server error (3 attempts in" in message
    assert "64 texts were embedded and cached" in message and KEY not in message


def test_total_time_bounds_the_retries(server):
    server.inject("503", times=100)
    start = time.monotonic()
    with pytest.raises(ServiceError, match=r"would pass max_total_s \(0.5 s\)"):
        embedder(server, max_retries=50, backoff_s=0.2, max_total_s=0.5).embed(["a"], "document")
    assert time.monotonic() - start < 2.0
    assert 2 <= len(server.received(EMBEDDINGS)) <= 4  # waits of 0.1-0.2, 0.2-0.4 s fit; 0.4-0.8 s does not


def test_a_rejected_key_fails_at_once_without_showing_it(monkeypatch):
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    with FakeVoyageServer(api_key="another-key") as server:
        with pytest.raises(ConfigError, match="HTTP 401: the API key was rejected; set VOYAGE_API_KEY") as caught:
            embedder(server).embed(["a"], "document")
        assert len(server.received(EMBEDDINGS)) == 1 and KEY not in str(caught.value)


def test_tokens_come_from_the_responses_and_cost_from_the_price_table(server):
    model = embedder(server)
    model.embed(["net revenue rose", "audit fee"], "document")  # 3 + 2 tokens as the server counts
    model.embed(["why?"], "query")  # 2 tokens
    assert model.usage.tokens == 7 and model.usage.requests == 2
    assert model.usage.price_per_million == 0.06  # voyage-3.5 in configs/prices.yaml
    assert model.estimated_cost_usd == pytest.approx(7 * 0.06 / 1e6)
    overridden = embedder(server, price_per_million=2.5)
    overridden.embed(["a b c d"], "document")
    assert overridden.usage.as_dict()["estimated_cost_usd"] == pytest.approx(4 * 2.5 / 1e6)
    assert embedder(server, model="unpriced-model", dimension=64).estimated_cost_usd is None
    before = model.usage.as_dict()  # an embedder reused by the next job of a sweep counts on
    model.embed(["a b c"], "document")
    assert model.usage.since(before) == {
        **model.usage.as_dict(),
        **{"requests": 1, "retries": 0, "texts": 1, "cached": 0, "tokens": 3},
        "estimated_cost_usd": pytest.approx(3 * 0.06 / 1e6),
    }


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
def test_base_url_with_or_without_v1(server, suffix):
    embedder(server, base_url=server.url + suffix).embed(["a"], "document")
    assert [r.path for r in server.requests] == [EMBEDDINGS]


def test_key_from_the_clients_key_file_variable(server, monkeypatch, tmp_path):
    (tmp_path / "key").write_text(KEY + "\n")
    monkeypatch.delenv("VOYAGE_API_KEY")
    monkeypatch.setenv("VOYAGE_API_KEY_PATH", str(tmp_path / "key"))
    embedder(server).embed(["a"], "document")
    assert server.received(EMBEDDINGS, outcome="200")[0].authorization == f"Bearer {KEY}"


def test_missing_key_is_a_config_error_before_any_request(server, monkeypatch):
    monkeypatch.delenv("VOYAGE_API_KEY")
    with pytest.raises(ConfigError, match="embedder=voyage needs a Voyage AI API key: set VOYAGE_API_KEY"):
        EMBEDDERS.build(EMBEDDERS.settings("voyage", model="voyage-3.5", dimension=256, base_url=server.url))
    assert server.requests == []


def test_bad_settings_are_config_errors():
    with pytest.raises(ConfigError, match=r"embedder.batch_size \(1001\) must be at most 1000"):
        EMBEDDERS.settings("voyage", model="voyage-3.5", batch_size=1001)
    with pytest.raises(ConfigError, match=r"embedder.concurrency \(0\) must be at least 1"):
        EMBEDDERS.settings("voyage", model="voyage-3.5", concurrency=0)
    with pytest.raises(ConfigError, match=r"embedder.base_url \('127.0.0.1:8000'\) must start with http://"):
        EMBEDDERS.settings("voyage", model="voyage-3.5", base_url="127.0.0.1:8000")


def test_the_fake_server_answers_float_lists_when_asked(server):
    client = voyageai.Client(api_key=KEY, max_retries=0, base_url=server.url + "/v1")
    floats = voyageai.Embedding.create(
        input=["audit fee"], model="voyage-3.5", encoding_format="float", output_dimension=8, **client._params
    )
    assert server.received(EMBEDDINGS)[0].body["encoding_format"] == "float"
    assert isinstance(floats.data[0]["embedding"], list)
    np.testing.assert_allclose(floats.data[0]["embedding"], FakeEmbedder(8).embed(["audit fee"])[0], atol=1e-6)


# --- the real command line ---


def rag_bench(*args, tmp_path, key=KEY, wait=True, cache="cache"):
    env = {k: v for k, v in os.environ.items() if not k.startswith("VOYAGE_API_KEY")}
    env.update({"RAG_BENCH_CACHE": str(tmp_path / cache), **({"VOYAGE_API_KEY": key} if key else {})})
    command = [sys.executable, "-m", "rag_bench", *args]
    if not wait:
        return subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)


def wait_for(condition, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.mark.slow
def test_a_run_killed_mid_embedding_resends_only_the_requests_in_flight(tmp_path):
    """Batches of 16, 4 requests at a time, 8 batches submitted at most: each is committed when it comes back,
    so a killed run loses only what was in flight (at most 128 texts) and the rerun sends nothing twice."""
    args = ["dataset=annual-report", "retrieval=dense", "chunker.size=200", "embedder=voyage", "embedder.batch_size=16"]
    with FakeVoyageServer(api_key="test-key", delay_s=0.3) as server:
        args.append(f"embedder.base_url={server.url}")
        first = rag_bench(*args, f"hydra.run.dir={tmp_path / 'a'}", tmp_path=tmp_path, key="test-key", wait=False)
        try:  # the 9th request is submitted only after the first batch came back and was committed
            wait_for(lambda: len(server.received(EMBEDDINGS)) >= 9, 120)
        finally:
            first.send_signal(signal.SIGKILL)
            first.communicate(timeout=30)
        assert first.returncode == -signal.SIGKILL
        killed = {t for r in server.received(EMBEDDINGS) for t in r.texts}
        committed = set(stored_keys(DiskCache(tmp_path / "cache")))
        server.requests.clear()
        second = rag_bench(*args, f"hydra.run.dir={tmp_path / 'b'}", tmp_path=tmp_path, key="test-key")
        assert second.returncode == 0, second.stderr
        resumed = [t for r in server.received(EMBEDDINGS) for t in r.texts]
    stats = json.loads((tmp_path / "b" / "metrics.json").read_text())["stats"]
    kept = {t for t in killed if text_key(t) in committed}
    assert len(kept) >= 16 and not kept & set(resumed)  # what was committed is never sent again
    assert killed - kept <= set(resumed) and len(killed - kept) <= 2 * 4 * 16  # only what was in flight
    assert len(resumed) == len(set(resumed)) == stats["embedded"]  # and nothing twice in the second run
    assert stats["embedded"] + stats["cache_hits"] == stats["chunks"] + 40


@pytest.mark.slow
def test_the_key_appears_in_no_output(tmp_path):
    args = ["dataset=annual-report", "retrieval=dense", "embedder=voyage", "reranker=voyage"]
    args.append(f"hydra.run.dir={tmp_path / 'run'}")
    with FakeVoyageServer(api_key=KEY) as server:
        server.inject("503")
        urls = [f"embedder.base_url={server.url}", f"reranker.base_url={server.url}"]
        done = rag_bench(*args, *urls, tmp_path=tmp_path)
        assert done.returncode == 0, done.stderr
        assert server.received("/v1/rerank", outcome="200") and server.received(EMBEDDINGS, outcome="503")
    with FakeVoyageServer(api_key="another-key") as server:  # a rejected key: the error line must not show it
        urls = [f"embedder.base_url={server.url}", f"reranker.base_url={server.url}"]
        failed = rag_bench(*args, *urls, tmp_path=tmp_path, cache="cache2")
    assert failed.returncode == 2 and "the API key was rejected" in failed.stderr
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert (tmp_path / "run" / "metrics.json") in files and len(files) > 10
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path
    for text in (done.stdout, done.stderr, failed.stdout, failed.stderr):
        assert KEY not in text


@pytest.mark.parametrize("stage", ["embedder", "reranker"])
def test_selecting_voyage_without_a_key_fails_at_start_up(tmp_path, stage):
    others = ["retrieval=bm25"] if stage == "embedder" else ["retrieval=bm25", "embedder=fake"]
    with FakeVoyageServer() as server:
        args = [*others, f"{stage}=voyage", f"{stage}.base_url={server.url}", f"hydra.run.dir={tmp_path / 'run'}"]
        done = rag_bench(*args, tmp_path=tmp_path, key=None)
        assert server.requests == []
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"rag-bench: error: {stage}=voyage needs a Voyage AI API key: set VOYAGE_API_KEY")
    assert not (tmp_path / "run" / "metrics.json").exists()


def test_matryoshka_models_are_embedded_once_at_the_largest_dimension(server):
    cfg = EMBEDDERS.settings("voyage", model="voyage-3.5", dimension=256, base_url=server.url)
    model = EMBEDDERS.build(cfg)
    assert model.matryoshka and model.dimension == 2048 and model.name == "voyage/voyage-3.5@2048"
    model.embed(["a b"], "document")
    assert server.received(EMBEDDINGS)[0].body["output_dimension"] == 2048
    plain = EMBEDDERS.build(EMBEDDERS.settings("voyage", model="voyage-2", dimension=1024, base_url=server.url))
    assert not plain.matryoshka and plain.dimension == 1024


def test_a_dimension_sweep_embeds_each_text_once(server, tmp_path):
    env = {**os.environ, "VOYAGE_API_KEY": KEY, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    for dim in (256, 512):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "rag_bench",
                "dataset=annual-report",
                "retrieval=dense",
                "embedder=voyage",
                "embedder.model=voyage-3.5",
                f"embedder.dimension={dim}",
                f"embedder.base_url={server.url}",
                f"hydra.run.dir={tmp_path / str(dim)}",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        stats = json.loads((tmp_path / str(dim) / "metrics.json").read_text())["stats"]
        assert stats["index_bytes"] == stats["chunks"] * dim * 4
    sent = [t for r in server.received(EMBEDDINGS) for t in r.texts]
    assert len(sent) == len(set(sent)) and {r.body["output_dimension"] for r in server.received(EMBEDDINGS)} == {2048}
