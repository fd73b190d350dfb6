"""Leases on texts: real writer processes on one cache namespace, and holders that die."""

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from rag_bench.core.cache import DiskCache
from rag_bench.embed.cached import CLAIM_EVERY, embed_cached
from rag_bench.embed.claims import Claims, Holder
from rag_bench.embed.store import VectorStore, stored_keys, text_key
from rag_bench.testing import FakeEmbedder

TEXTS = [f"passage {i} about topic {i % 7}" for i in range(500)]

WRITER = str(Path(__file__).with_name("claim_writer.py"))  # one writer process (or cluster job)


def share(seed: int) -> list[str]:
    """The texts writer ``seed`` asks for, as WRITER picks them."""
    texts = list(TEXTS)
    random.Random(seed).shuffle(texts)
    return texts[: len(texts) * 4 // 5] + texts[:10]


def start_writers(tmp_path: Path, n: int, delay: float = 0.002) -> list[subprocess.Popen]:
    texts_file = tmp_path / "texts.json"
    texts_file.write_text(json.dumps(TEXTS))
    return [
        subprocess.Popen(
            [
                sys.executable,
                WRITER,
                str(tmp_path / "cache"),
                str(texts_file),
                str(seed),
                str(seed % 2),
                str(tmp_path / f"log-{seed}"),
                str(tmp_path / "go"),
                str(delay),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for seed in range(n)
    ]


def test_writer_processes_on_one_namespace_embed_each_text_once(tmp_path):
    procs = start_writers(tmp_path, n=4)
    try:
        (tmp_path / "go").touch()
        results = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    finally:
        for p in procs:
            p.kill()
            p.wait()
    assert [p.returncode for p in procs] == [0, 0, 0, 0]
    logs = [tmp_path / f"log-{seed}" for seed in range(4)]
    logged = [line for log in logs if log.exists() for line in log.read_text().splitlines()]
    asked = {t for seed in range(4) for t in share(seed)}
    assert len(logged) == len(set(logged)) == len(asked) > 490  # every text asked for sent to an embedder once
    assert set(logged) == asked and sum(r["embedded"] for r in results) == len(asked)
    # each asked 410 texts, 400 distinct (the first 10 twice): each distinct text embedded here or served
    assert all(r["embedded"] + r["cache_hits"] == 400 and r["n"] == 410 for r in results)
    assert sum(r["embedded"] > 0 for r in results) >= 2  # the work was shared, not done by one writer alone
    cache = DiskCache(tmp_path / "cache")
    keys = stored_keys(cache, "vectors/fake--hash-16/16/document")
    assert len(keys) == len(set(keys)) == len(asked) and cache.corrupt == 0  # nothing lost, torn or stored twice
    assert set(keys) == {text_key(t) for t in asked}
    assert not list((tmp_path / "cache").rglob(".tmp-*"))
    left = [p.name for p in (tmp_path / "cache" / "claims").rglob("*") if p.is_file()]
    assert left == ["generation"]  # every claim released; the token of the last claimer stays


def test_claims_of_a_killed_holder_are_waited_for_then_taken_over(tmp_path):
    store = VectorStore(DiskCache(tmp_path / "cache"), "fake/hash-16", 16, "document")
    (holder,) = start_writers(tmp_path, n=1, delay=3600)  # blocks in its first batch, holding its claims
    held = min(CLAIM_EVERY, len(set(share(0))))  # one claim: its whole share of 400 texts (a claim holds 512)
    result: dict = {}
    waiter = threading.Thread(
        target=lambda: result.update(out=embed_cached(FakeEmbedder(16), store, TEXTS, "document"))
    )
    try:
        (tmp_path / "go").touch()
        assert until(lambda: len(store.claims.held()) == held)  # one lease taken
        assert len(store.claims.leases()) == 1
        waiter.start()
        # the waiter embeds every free text, then waits for the ones the holder claimed
        assert until(lambda: len(stored_keys(store.cache, store.namespace)) == len(TEXTS) - held)
        time.sleep(1.0)
        assert waiter.is_alive() and holder.poll() is None
    finally:
        holder.send_signal(signal.SIGKILL)  # killed hard, mid-batch: its claims stay on disk
        holder.communicate()
    killed = time.monotonic()
    waiter.join(timeout=30)
    assert not waiter.is_alive() and time.monotonic() - killed < 5
    vectors, stats = result["out"]
    assert (stats.embedded, stats.cache_hits, store.claims.broken) == (len(TEXTS), 0, held)
    np.testing.assert_array_equal(vectors, FakeEmbedder(16).embed(TEXTS))
    assert [p.name for p in store.claims.folder.glob("*")] == ["generation"]  # no lease left


def until(condition, timeout: float = 30) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass; whether it held."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_holder_identity_and_pid_reuse():
    me = Holder.me()
    assert Holder.parse(me.line()) == me and not me.dead()
    assert Holder(me.host, os.getpid(), "1").dead()  # this PID, but another process's start time: reused
    assert not Holder("another-host|pid:[1]", 1, "1").dead()  # unknown from here: judged by age
    assert Holder.parse("half-written") is None


def test_a_foreign_claim_is_broken_only_once_stale(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_BENCH_CLAIM_TIMEOUT", "1.5")
    store = VectorStore(DiskCache(tmp_path), "fake/hash-16", 16, "document")
    texts = TEXTS[:10]
    foreign = Claims(tmp_path, store.namespace)
    foreign._line = b"another-host|pid:[1] 4242 777"  # held from another host: its PID says nothing here
    assert foreign.take([text_key(t) for t in texts[:3]], limit=64) == [text_key(t) for t in texts[:3]]
    assert store.claims.take([text_key(texts[0])], limit=64) == []  # held
    start = time.monotonic()
    vectors, stats = embed_cached(FakeEmbedder(16), store, texts, "document")
    waited = time.monotonic() - start
    assert 1.5 <= waited < 10 and store.claims.broken == 3 and stats.embedded == 10
    np.testing.assert_array_equal(vectors, FakeEmbedder(16).embed(texts))


def test_a_claim_released_after_its_commit_is_not_embedded_again(tmp_path):
    cache, fake = DiskCache(tmp_path), FakeEmbedder(16)
    other = VectorStore(cache, fake.name, 16, "document")
    mine = VectorStore(cache, fake.name, 16, "document")
    mine.known()  # loaded before the other store commits: it has not seen the batch
    embed_cached(fake, other, ["alpha", "beta"], "document")
    _, stats = embed_cached(fake, mine, ["alpha", "beta", "gamma"], "document")
    assert (stats.embedded, stats.cache_hits) == (1, 2) and [n for n, _ in fake.calls] == [2, 1]


def test_a_dead_holder_on_this_host_is_broken_at_once(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    store = VectorStore(DiskCache(tmp_path), "fake/hash-16", 16, "document")
    ghost = Claims(tmp_path, store.namespace)
    ghost._line = Holder(Holder.me().host, int(dead.stdout), "1").line().encode()
    ghost.take([text_key(t) for t in TEXTS[:5]], limit=64)
    start = time.monotonic()
    _, stats = embed_cached(FakeEmbedder(16), store, TEXTS[:5], "document")
    assert time.monotonic() - start < 2 and store.claims.broken == 5 and stats.embedded == 5
