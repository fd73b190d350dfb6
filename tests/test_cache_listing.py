"""Listing a cache namespace again and again reads only the sub-folders that changed (the vector store's refresh
before every claim), and vector batches are written without an fsync each."""

import os
import time

import numpy as np

import rag_bench.core.files
from rag_bench.core.cache import RACY_NS, DiskCache, Listing
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.store import VectorStore, text_key
from rag_bench.testing import FakeEmbedder


def _age(cache: DiskCache, namespace: str, seconds: float) -> None:
    """Set every sub-folder's mtime ``seconds`` into the past (as if written long ago)."""
    past = time.time() - seconds
    for sub in (cache.root / namespace).iterdir():
        os.utime(sub, (past, past))


def test_a_listing_rereads_only_changed_sub_folders(tmp_path, monkeypatch):
    cache, listing = DiskCache(tmp_path), Listing()
    for key in ("aa01", "aa02", "bb01"):
        cache.put("ns", key, b"x")
    assert cache.keys("ns", listing) == ["aa01", "aa02", "bb01"]  # first look: everything
    _age(cache, "ns", 10)
    assert cache.keys("ns", listing) == ["aa01", "aa02", "bb01"]  # written just now: looked at again
    listed: list[str] = []
    real = os.listdir
    monkeypatch.setattr(os, "listdir", lambda path: listed.append(os.path.basename(path)) or real(path))
    assert cache.keys("ns", listing) == [] and listed == []  # nothing changed, nothing read
    cache.put("ns", "bb02", b"y")  # another writer adds an entry to bb/
    assert cache.keys("ns", listing) == ["bb01", "bb02"] and listed == ["bb"]  # only bb/ read again
    cache.put("ns", "cc01", b"z")  # a new sub-folder
    assert "cc01" in cache.keys("ns", listing)
    assert cache.keys("ns") == ["aa01", "aa02", "bb01", "bb02", "cc01"]  # without a listing: all, as before


def test_a_sub_folder_changed_within_the_racy_window_is_listed_again(tmp_path):
    cache, listing = DiskCache(tmp_path), Listing()
    cache.put("ns", "aa01", b"x")
    cache.keys("ns", listing)
    mtime = (tmp_path / "ns" / "aa").stat().st_mtime_ns
    assert time.time_ns() - mtime < RACY_NS and listing.mtimes["aa"] is None  # not trusted yet
    # an entry that lands within the same mtime tick (mtime put back) is still found
    cache.put("ns", "aa02", b"y")
    os.utime(tmp_path / "ns" / "aa", ns=(mtime, mtime))
    assert "aa02" in cache.keys("ns", listing)


def test_a_store_sees_batches_another_store_commits_between_refreshes(tmp_path):
    cache, embedder = DiskCache(tmp_path), FakeEmbedder(8)
    mine, other = (VectorStore(cache, embedder.name, 8, "document") for _ in range(2))
    texts = [f"text number {i}" for i in range(300)]
    embed_cached(embedder, mine, texts[:100], "document")
    for start in range(100, 300, 50):  # the other process commits while this one keeps refreshing
        keys = [text_key(t) for t in texts[start : start + 50]]
        other.commit(keys, embedder.embed(texts[start : start + 50]))
        known = mine.refresh()
        assert all(k in known for k in keys)
    vectors, stats = embed_cached(embedder, mine, texts, "document")
    assert (stats.embedded, stats.cache_hits) == (0, 300)
    assert np.array_equal(vectors, embedder.embed(texts))


def test_vector_batches_skip_the_fsync_other_files_keep_it(tmp_path, monkeypatch):
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(rag_bench.core.files.os, "fsync", lambda fd: synced.append(fd) or real(fd))
    cache, embedder = DiskCache(tmp_path / "cache"), FakeEmbedder(8)
    store = VectorStore(cache, embedder.name, 8, "document")
    embed_cached(embedder, store, [f"t{i}" for i in range(200)], "document")  # 4 batch entries
    assert synced == []
    rag_bench.core.files.write_text(tmp_path / "report.txt", "kept")
    cache.put("candidates", "k", b"v")
    assert len(synced) == 2  # a user's file and every other cache entry are still synced
    assert (tmp_path / "report.txt").read_text() == "kept" and cache.get("candidates", "k") == b"v"
