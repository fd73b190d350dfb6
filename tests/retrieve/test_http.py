"""retrieval=http against a fake service on 127.0.0.1: faults, retries, the response cache, a killed run resuming.

Every server here stops when its ``with`` block ends (success or failure); every wait is bounded by the
settings below (timeouts of a fraction of a second, at most two retries).
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rag_bench.core.errors import ConfigError, DataError, ServiceError
from rag_bench.testing.retrieval_server import FakeRetrievalServer

from .conftest import rag_bench_cli, write_filtered_dataset

ANSWERS = {
    "q1": [
        {"doc_id": "a.md", "start": 19, "end": 58, "score": 2.0},
        {"doc_id": "c.md", "start": 0, "end": 48, "score": 1.0},
    ],
    "q2": [{"doc_id": "c.md", "text": "six hours"}, {"doc_id": "b.md", "text": "Aphids were counted on sticky traps."}],
    "q3": [],
}
FAST = ("retrieval.max_retries=2", "retrieval.backoff_s=0.05", "retrieval.timeout_s=0.5", "retrieval.max_total_s=20")


@pytest.fixture
def http_run(tiny, run_with):
    """http_run(server, *overrides) -> RunResult of retrieval=http on the tiny dataset, one question at a time."""

    def go(server, *overrides):
        base = (f"dataset.path={tiny}", "retrieval=http", f"retrieval.url={server.url}", "ks=[1,2]")
        return run_with(*base, *FAST, "retrieval.concurrency=1", *overrides)

    return go


def scores_of(result):
    table = result.evaluation.per_question.set_index("question_id")
    return {q: (table.at[q, "hit@1"], table.at[q, "mrr@2"]) for q in ("q1", "q2", "q3")}


EXPECTED = {"q1": (1.0, 1.0), "q2": (0.0, 0.5), "q3": (0.0, 0.0)}  # q2's evidence is b.md [0, 36), ranked second


def test_a_clean_run_posts_each_question_once(http_run):
    with FakeRetrievalServer(ANSWERS) as server:
        result = http_run(server)
        sent = server.received()
    assert scores_of(result) == EXPECTED
    assert sorted((r.body["id"], r.body["k"]) for r in sent) == [("q1", 20), ("q2", 20), ("q3", 20)]
    assert sent[0].body["question"] == "When did the certificate expire?"
    details = result.stats.retrieval["http"]
    assert (details["requests"], details["retries"], details["from_cache"]) == (3, 0, 0)
    assert result.stats.retriever == f"http {server.url}"
    assert result.reusable is False  # a service may answer otherwise tomorrow: its runs are never served whole


def test_a_run_of_a_service_asks_it_again_and_is_never_served_from_the_run_cache(tiny, tmp_path):
    with FakeRetrievalServer(ANSWERS) as server:
        for name in ("a", "b"):
            overrides = (f"dataset.path={tiny}", "embedder=fake", "retrieval=http", f"retrieval.url={server.url}")
            out = f"hydra.run.dir={tmp_path / name}"
            done = rag_bench_cli(*overrides, "retrieval.cache=false", *FAST, out, cache=tmp_path / "cache")
            assert done.returncode == 0, done.stderr
        assert len(server.received()) == 6  # three questions, asked by each run
    stats = json.loads((tmp_path / "b" / "metrics.json").read_text())["stats"]
    assert stats["reused"] != {"run": True} and stats["retrieval"]["http"]["requests"] == 3


def test_429_waits_for_retry_after(http_run):
    with FakeRetrievalServer(ANSWERS) as server:
        server.inject("429", times=2, retry_after="0.3")
        result = http_run(server)
        sent = server.received()
    assert scores_of(result) == EXPECTED
    assert [r.outcome for r in sent[:3]] == ["429", "429", "200"]
    assert sent[1].at - sent[0].at >= 0.29 and sent[2].at - sent[1].at >= 0.29  # the server's wait, not ours
    assert result.stats.retrieval["http"]["retries"] == 2


def test_answers_cached_under_one_token_are_never_served_to_another(http_run, monkeypatch, tmp_path):
    with FakeRetrievalServer(ANSWERS) as server:
        monkeypatch.setenv("SEARCH_TOKEN", "s3cret-alice")
        http_run(server, "retrieval.token_env=SEARCH_TOKEN")
        http_run(server, "retrieval.token_env=SEARCH_TOKEN")  # the same credential: served from the cache
        monkeypatch.setenv("SEARCH_TOKEN", "s3cret-bob")
        bob = http_run(server, "retrieval.token_env=SEARCH_TOKEN")
        asked = [r.authorization for r in server.received()]
    assert asked == ["Bearer s3cret-alice"] * 3 + ["Bearer s3cret-bob"] * 3  # bob's questions were asked again
    assert bob.stats.retrieval["http"]["from_cache"] == 0
    cache = bob.config.cache_dir
    assert not any(b"s3cret" in p.read_bytes() for p in Path(cache).rglob("*") if p.is_file())


@pytest.mark.parametrize("kind", ["500", "reset"])
def test_server_errors_and_resets_are_retried(http_run, kind):
    with FakeRetrievalServer(ANSWERS) as server:
        server.inject(kind)
        result = http_run(server)
        outcomes = [r.outcome for r in server.received()]
    assert scores_of(result) == EXPECTED
    assert outcomes[0] == kind and outcomes.count("200") == 3 and len(outcomes) == 4


def test_a_slow_answer_times_out_and_is_asked_again(http_run):
    with FakeRetrievalServer(ANSWERS) as server:
        server.inject("slow", delay_s=10.0)  # far longer than timeout_s (0.5)
        start = time.monotonic()
        result = http_run(server)
        elapsed = time.monotonic() - start
        outcomes = [r.outcome for r in server.received()]
    assert scores_of(result) == EXPECTED and outcomes[0] == "slow" and len(outcomes) == 4
    assert elapsed < 8.0  # the client gave up on the slow answer instead of waiting for it (margin for a loaded host)


def test_retries_run_out_with_one_line_naming_the_question(http_run):
    with FakeRetrievalServer(ANSWERS) as server:
        server.inject("500", times=10)
        with pytest.raises(ServiceError) as err:
            http_run(server)
        assert len(server.received()) == 3  # max_retries=2: three attempts
    message = str(err.value)
    assert message.startswith(f"retrieval.url {server.url}: question 'q1' failed: HTTP 500 server error (3 attempts")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("kind", "problem"),
    [
        ("malformed", "malformed JSON (Expecting value): '<html>upstream error</html>'"),
        ("shape", 'no "results" list: \'{"hits": []}\''),
    ],
)
def test_an_answer_that_is_not_results_fails_at_once_quoting_it(http_run, kind, problem):
    with FakeRetrievalServer(ANSWERS) as server:
        server.inject(kind)
        with pytest.raises(ServiceError) as err:
            http_run(server)
        assert len(server.received()) == 1  # not retried: the service answered, wrongly
    assert str(err.value) == (
        f"retrieval.url {server.url} answered question 'q1' with {problem} (fix: answer {{\"results\": [...]}})"
    )


def test_an_endpoint_that_is_down(http_run):
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    class Down:
        url = f"http://127.0.0.1:{port}/search"

    start = time.monotonic()
    with pytest.raises(ServiceError) as err:
        http_run(Down())
    assert time.monotonic() - start < 10
    assert "connection refused: nothing listens there (3 attempts" in str(err.value)
    assert "check that the service is up" in str(err.value)


def test_a_wrong_path_fails_at_once(http_run):
    with FakeRetrievalServer(ANSWERS) as server:

        class Elsewhere:
            url = server.url.replace("/search", "/find")

        with pytest.raises(ServiceError, match=r"HTTP 404: '\{\"detail\": \"no endpoint /find\"\}' \(1 attempt in"):
            http_run(Elsewhere())


def test_results_naming_unknown_documents_are_data_errors_and_not_cached(http_run):
    bad = {**ANSWERS, "q2": [{"doc_id": "nope.md", "start": 0, "end": 4}]}
    with FakeRetrievalServer(bad) as server, pytest.raises(DataError) as err:
        http_run(server)
    assert str(err.value).startswith(
        f"retrieval.url {server.url} (question 'q2'): results[0].doc_id: unknown document 'nope.md'"
    )
    with FakeRetrievalServer(ANSWERS, port=int(server.url.split(":")[2].split("/")[0])) as fixed:
        result = http_run(fixed)  # same url: q1 comes from the cache; q2 is asked again, q3 was never reached
        assert [r.body["id"] for r in fixed.received()] == ["q2", "q3"]
    assert scores_of(result) == EXPECTED


def test_cached_answers_serve_reruns_and_k_sweeps(http_run):
    with FakeRetrievalServer(ANSWERS) as server:
        first = http_run(server)
        again = http_run(server)
        other_ks = http_run(server, "ks=[1,2,5]")
        assert len(server.received()) == 3
        uncached = http_run(server, "retrieval.cache=false")
        assert len(server.received()) == 6
        deeper = http_run(server, "retrieval.depth=30")  # another k sent: another answer
        assert len(server.received()) == 9
    assert scores_of(again) == scores_of(other_ks) == scores_of(uncached) == scores_of(deeper) == EXPECTED
    assert again.stats.retrieval["http"] == {
        **first.stats.retrieval["http"],
        "requests": 0,
        "from_cache": 3,
        "latency_ms": None,
    }
    assert uncached.stats.retrieval["http"]["from_cache"] == 0


def test_concurrency_is_bounded(tiny, run_with):
    with FakeRetrievalServer(ANSWERS, delay_s=0.3) as server:
        base = (f"dataset.path={tiny}", "retrieval=http", f"retrieval.url={server.url}", *FAST)
        run_with(*base, "retrieval.timeout_s=5", "retrieval.concurrency=2")
        assert server.max_in_flight == 2


def test_a_bearer_token_from_the_environment(http_run, monkeypatch):
    monkeypatch.setenv("SEARCH_TOKEN", "s3cret")
    with FakeRetrievalServer(ANSWERS) as server:
        result = http_run(server, "retrieval.token_env=SEARCH_TOKEN")
        assert {r.authorization for r in server.received()} == {"Bearer s3cret"}
    assert "s3cret" not in repr(result.config)  # only the variable's name is configured
    monkeypatch.delenv("SEARCH_TOKEN")
    with pytest.raises(ConfigError, match="retrieval.token_env names SEARCH_TOKEN, which is not set"):
        http_run(server, "retrieval.token_env=SEARCH_TOKEN")


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("retrieval.url=ftp://x/y", "retrieval.url ('ftp://x/y') must start with http:// or https://"),
        ("retrieval.concurrency=0", "retrieval.concurrency (0) must be at least 1"),
        ("retrieval.timeout_s=0", "retrieval.timeout_s (0.0) must be positive"),
    ],
)
def test_bad_settings_fail_before_any_request(tiny, run_with, override, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_with(f"dataset.path={tiny}", "retrieval=http", "retrieval.url=http://127.0.0.1:9/s", override)


@pytest.mark.slow
def test_a_killed_run_resumes_from_the_answers_it_had(tmp_path, run_with):
    """SIGKILL the real command half way; the rerun asks only for the questions it had no answer to."""
    answer = [{"doc_id": "annual-report.md", "start": 0, "end": 400}]
    cache = tmp_path / "cache"
    with FakeRetrievalServer(lambda body: answer, delay_s=0.05) as server:
        args = ("dataset=annual-report", "embedder=fake", "retrieval=http", f"retrieval.url={server.url}")
        command = [
            sys.executable,
            "-m",
            "rag_bench",
            *args,
            "retrieval.concurrency=1",
            f"hydra.run.dir={tmp_path / 'a'}",
        ]
        env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while len(server.received()) < 12 and time.monotonic() < deadline and process.poll() is None:
                time.sleep(0.02)
            os.kill(process.pid, signal.SIGKILL)
        finally:
            process.kill()  # already gone on success; stops it here on any failure above
            process.wait(timeout=30)
        asked_before = {r.body["id"] for r in server.received()}
        assert 12 <= len(asked_before) < 40 and not (tmp_path / "a" / "metrics.json").exists()
        n_before = len(server.received())
        resumed = run_with(*args[:-1], f"retrieval.url={server.url}", f"cache_dir={cache}")
        asked_again = [r.body["id"] for r in server.received()[n_before:]]
        uninterrupted = run_with(*args, f"cache_dir={tmp_path / 'fresh'}")
    # every answer received before the kill was cached; at most the one in flight is asked again
    assert len(asked_again) <= 40 - len(asked_before) + 1
    assert set(asked_again) | asked_before == {q.id for q in resumed.dataset.questions}
    assert resumed.stats.retrieval["http"]["from_cache"] == 40 - len(asked_again)
    assert {n: s.mean for n, s in resumed.evaluation.summary.items()} == {
        n: s.mean for n, s in uninterrupted.evaluation.summary.items()
    }


def test_filter_mode_pre_sends_each_questions_filter_and_leak_measures_what_came_back(tmp_path, run_with):
    acl = write_filtered_dataset(tmp_path)
    hr_first = [{"doc_id": "b.md", "start": 0, "end": 36}, {"doc_id": "a.md", "start": 19, "end": 58}]

    def obeys(body):  # a service applying {"acl": "all"} itself
        allowed = body.get("filter", {}).get("acl")
        return [r for r in hr_first if allowed is None or allowed in acl[r["doc_id"]]]

    base = (f"dataset.path={tmp_path}", "retrieval=http", "ks=[1,2]", *FAST, "retrieval.concurrency=1")
    with FakeRetrievalServer(obeys) as server:
        pre = run_with(*base, f"retrieval.url={server.url}", "retrieval.filter_mode=pre")
        none = run_with(*base, f"retrieval.url={server.url}")  # the default: filters stay here
        sent = {(r.body["id"], r.body.get("filter") is not None): r.body for r in server.received()}
    assert sent[("q1", True)]["filter"] == {"acl": "all"} and ("q2", True) not in sent
    assert len(sent) == 3  # q1 with and without its filter (cached apart), q2 once: its answer is the same
    leak = {name: r.evaluation.per_question.set_index("question_id").at["q1", "leak@2"] for name, r in
            (("pre", pre), ("none", none))}  # fmt: skip
    assert leak == {"pre": 0.0, "none": 0.5}  # unfiltered, b.md (hr only) came first
    assert pre.evaluation.per_question.set_index("question_id").at["q1", "hit@1"] == 1.0
