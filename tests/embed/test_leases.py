"""Leases: one pair of files per claimed batch, the namespace lock, and two real processes on overlapping texts."""

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from rag_bench.core.cache import DiskCache
from rag_bench.embed.cached import CLAIM_EVERY, embed_cached
from rag_bench.embed.claims import LOCK_STALE_S, Claims, Holder
from rag_bench.embed.store import VectorStore, stored_keys, text_key
from rag_bench.testing import FakeEmbedder

WRITER = str(Path(__file__).with_name("claim_writer.py"))
NAMESPACE = "vectors/fake--hash-16/16/document"


def keys(n: int, start: int = 0) -> list[bytes]:
    return [text_key(f"text {i}") for i in range(start, start + n)]


def lease_files(folder) -> list[str]:
    """The files of a claims folder but its generation token (which stays once written)."""
    return sorted(name for name in os.listdir(folder) if name != "generation")


def test_a_batch_is_claimed_with_one_lease_and_released_whole(tmp_path):
    claims, other = Claims(tmp_path, NAMESPACE), Claims(tmp_path, NAMESPACE)
    assert claims.take(keys(5), limit=3) == keys(3)
    files = lease_files(claims.folder)
    assert len(files) == 2 and files[0].endswith(".keys") and files[1].endswith(".lease")  # the lock is gone
    assert files[0].removesuffix(".keys") == files[1].removesuffix(".lease")
    assert (claims.folder / files[1]).read_bytes() == Holder.me().line().encode()
    # the held keys are skipped, in order, and the limit counts the keys taken
    assert other.take(keys(6), limit=2) == keys(2, start=3)
    assert claims.held() == set(keys(5)) and len(claims.leases()) == 2
    claims.release(keys(3))
    assert other.held() == set(keys(2, start=3)) and len(lease_files(claims.folder)) == 2
    assert other.take(keys(6), limit=10) == [*keys(3), keys(1, start=5)[0]]
    other.release([*keys(2, start=3)])
    assert other.held() == {*keys(3), keys(1, start=5)[0]}  # the second lease is still held: released whole


def test_every_file_of_the_claims_folder_reads_as_a_holder_or_as_nothing(tmp_path):
    """Tools that look for holders (the cluster tests' wait_idle) read each file as text and parse it."""
    claims = Claims(tmp_path, NAMESPACE)
    claims.take(keys(600), limit=600)
    parsed = [Holder.parse(path.read_text()) for path in claims.folder.iterdir()]
    assert sorted(map(str, parsed)) == sorted(["None", "None", str(Holder.me())])  # keys, generation, lease


def test_a_lock_left_by_a_dead_process_is_broken_at_once(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    claims = Claims(tmp_path, NAMESPACE)
    claims.folder.mkdir(parents=True)
    (claims.folder / "lock").write_text(Holder(Holder.me().host, int(dead.stdout), "1").line())
    start = time.monotonic()
    assert claims.take(keys(4), limit=10) == keys(4)
    assert time.monotonic() - start < 1 and not (claims.folder / "lock").exists()


def test_a_live_lock_is_waited_for_and_a_stale_one_broken(tmp_path):
    claims = Claims(tmp_path, NAMESPACE)
    claims.folder.mkdir(parents=True)
    lock = claims.folder / "lock"
    lock.write_text("another-host|pid:[1] 4242 777")  # from another host: alive as far as this one knows
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import os, time; time.sleep(0.5); os.unlink({str(lock)!r})"]
    )  # releases it after 0.5 s
    try:
        start = time.monotonic()
        assert claims.take(keys(2), limit=10) == keys(2)
        assert 0.4 < time.monotonic() - start < 5
    finally:
        holder.kill()
        holder.wait()
    claims.release(keys(2))
    lock.write_text("another-host|pid:[1] 4242 777")
    old = time.time() - LOCK_STALE_S - 5
    os.utime(lock, (old, old))  # held longer than any claim takes: its holder stopped
    assert claims.take(keys(2), limit=10) == keys(2)


def test_keys_written_by_a_claimer_that_died_before_its_lease_are_free_and_cleaned(tmp_path):
    claims = Claims(tmp_path, NAMESPACE)
    claims.folder.mkdir(parents=True)
    (claims.folder / "0123456789abcdef.keys").write_text("\n".join(k.hex() for k in keys(3)))
    (claims.folder / ".tmp-fedcba9876543210").write_text(keys(1)[0].hex()[:20])  # torn while written
    assert claims.held() == set()
    assert claims.take(keys(3), limit=10) == keys(3)
    assert len(lease_files(claims.folder)) == 2  # its own lease; the orphan and the torn file deleted


def test_a_stale_lease_counts_its_keys_when_broken(tmp_path):
    foreign = Claims(tmp_path, NAMESPACE, stale_after=0.2)
    foreign._line = b"another-host|pid:[1] 4242 777"
    mine = Claims(tmp_path, NAMESPACE, stale_after=0.2)
    foreign.take(keys(7), limit=7)  # the lease's age counts from its holder file, written just now
    assert mine.break_stale(keys(1)) == 0 and mine.take(keys(7), limit=7) == []
    time.sleep(0.3)
    assert mine.break_stale(keys(1, start=50)) == 0  # a key it does not hold: the lease is left alone
    assert mine.break_stale(keys(1, start=6)) == 7 and mine.broken == 7 and mine.held() == set()
    assert not lease_files(mine.folder)


def test_two_processes_on_overlapping_texts_embed_each_text_once(tmp_path):
    texts = [f"lease passage {i} on subject {i % 11}" for i in range(3 * CLAIM_EVERY)]
    (tmp_path / "texts.json").write_text(json.dumps(texts))
    procs = [
        subprocess.Popen(
            [sys.executable, WRITER, str(tmp_path / "cache"), str(tmp_path / "texts.json"), str(seed), str(seed)]
            + [str(tmp_path / f"log-{seed}"), str(tmp_path / "go"), "0.0005"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for seed in range(2)
    ]
    try:
        (tmp_path / "go").touch()
        results = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    finally:
        for p in procs:
            p.kill()
            p.wait()
    logged = [line for seed in range(2) for line in (tmp_path / f"log-{seed}").read_text().splitlines()]
    # each writer asks for 80% of the texts (shuffled by its seed): the union is embedded once, by one of them
    asked = set()
    for seed in range(2):
        shuffled = list(texts)
        random.Random(seed).shuffle(shuffled)
        asked |= set(shuffled[: len(shuffled) * 4 // 5])
    assert len(logged) == len(set(logged)) == len(asked) and set(logged) == asked
    assert all(r["embedded"] > 0 for r in results) and sum(r["embedded"] for r in results) == len(asked)
    stored = stored_keys(DiskCache(tmp_path / "cache"), NAMESPACE)
    assert len(stored) == len(set(stored)) == len(asked) and set(stored) == {text_key(t) for t in asked}
    left = [p for p in (tmp_path / "cache" / "claims").rglob("*") if p.is_file() and p.name != "generation"]
    assert not left  # every lease released


def test_a_claimer_is_quiet_only_when_no_other_claimer_can_have_committed_since_its_last_take(tmp_path):
    mine, other = Claims(tmp_path, NAMESPACE), Claims(tmp_path, NAMESPACE)
    quiet = []
    for n in range(3):  # alone: the first take looks at the cache, the next ones need not
        mine.release(mine.take(keys(2, start=2 * n), limit=2))
        quiet.append(mine.quiet)
    assert quiet == [False, True, True]
    other.release(other.take(keys(1, start=10), limit=1))  # another claimer took (and released) a lease meanwhile
    mine.release(mine.take(keys(1, start=20), limit=1))
    assert not mine.quiet
    held = other.take(keys(1, start=30), limit=1)  # held at mine's next take: it may commit before the one after
    mine.release(mine.take(keys(1, start=40), limit=1))
    assert not mine.quiet and not other.quiet
    other.release(held)
    mine.release(mine.take(keys(1, start=50), limit=1))
    assert not mine.quiet  # the token is mine again, but a lease of the other was held at the previous take
    mine.release(mine.take(keys(1, start=60), limit=1))
    assert mine.quiet
    (mine.folder / "generation").unlink()  # a token gone (a cleaned cache): look again
    mine.release(mine.take(keys(1, start=70), limit=1))
    assert not mine.quiet


def test_a_store_looks_at_the_cache_once_while_its_claims_are_quiet(tmp_path, monkeypatch):
    looks = []
    listing = DiskCache.keys
    monkeypatch.setattr(DiskCache, "keys", lambda self, *a, **k: looks.append(1) or listing(self, *a, **k))
    texts = [f"quiet text {i}" for i in range(3 * CLAIM_EVERY + 5)]  # four claims
    store = VectorStore(DiskCache(tmp_path), "fake/hash-16", 16, "document")
    vectors, stats = embed_cached(FakeEmbedder(16), store, texts, "document", memory_map=True)
    # two looks before embedding (the index read, then refreshed: _missing), one after the first claim, then
    # none after the three others: the claims stayed quiet
    assert len(looks) == 3 and stats.embedded == len(texts)
    np.testing.assert_array_equal(vectors, FakeEmbedder(16).embed(texts))
    other = VectorStore(DiskCache(tmp_path), "fake/hash-16", 16, "document")
    extra = [f"other text {i}" for i in range(3)]
    looks.clear()
    _, stats = embed_cached(FakeEmbedder(16), other, [*texts[:5], *extra], "document", memory_map=True)
    assert stats.embedded == 3 and stats.cache_hits == 5 and len(looks) == 3  # another store: its first claim looks
