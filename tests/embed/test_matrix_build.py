"""The corpus matrix written while its batches are embedded: byte for byte the file the batch-by-batch writer makes."""

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
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.embed.cached import COMMIT_EVERY, embed_cached
from rag_bench.embed.matrix import read_matrix, write_matrix
from rag_bench.embed.matrix_build import MatrixBuild
from rag_bench.embed.store import VectorStore, stored_keys, text_key
from rag_bench.testing import FakeEmbedder

WRITER = str(Path(__file__).with_name("claim_writer.py"))


def reference_file(rows: np.ndarray, folder: Path) -> bytes:
    """The matrix entry of ``rows`` as ``matrix.write_matrix`` writes it (the writer before this one)."""
    path = folder / "reference-matrix"
    with open(path, "w+b") as handle:
        write_matrix(handle, len(rows), [(rows, np.arange(len(rows)), np.arange(len(rows)))])
    return path.read_bytes()


def matrix_files(root: Path) -> list[Path]:
    return [p for p in (root / "vectors-matrix").rglob("*") if p.is_file()]


def test_rows_added_out_of_order_and_rows_read_from_batches_make_the_same_file(tmp_path):
    rows = np.random.default_rng(1).standard_normal((7, 5), dtype=np.float32)
    keys = [bytes([i]) * 32 for i in range(6)] + [bytes([2]) * 32]  # key 2 at positions 2 and 6
    store = VectorStore(DiskCache(tmp_path), "m", 5, "document")
    store.commit(keys[4:6], rows[4:6])  # cached before the build: read from its batch at the end
    with store.building(keys) as build:
        store.commit([keys[2], keys[3]], rows[2:4])  # out of order: rows 0-1 are not there yet
        store.commit(keys[:2], rows[:2])
        assert np.flatnonzero(build.filled).tolist() == [0, 1, 2, 3, 6]  # keys 0-3, key 2 at both its places
        mapped = store.save_matrix(keys, build)
    expected = np.concatenate([rows[:6], rows[2:3]])
    np.testing.assert_array_equal(mapped, expected)
    (path,) = matrix_files(tmp_path)
    assert path.read_bytes() == reference_file(expected, tmp_path)
    np.testing.assert_array_equal(read_matrix(path, 7), expected)  # its checksum holds


def test_a_fresh_corpus_is_checksummed_as_it_arrives(tmp_path):
    texts = [f"passage {i}" for i in range(2 * COMMIT_EVERY + 10)]
    store = VectorStore(DiskCache(tmp_path), "fake/hash-16", 16, "document")
    vectors, stats = embed_cached(FakeEmbedder(16), store, texts, "document", memory_map=True)
    assert stats.embedded == len(texts)
    expected = FakeEmbedder(16).embed(texts)
    np.testing.assert_array_equal(vectors, expected)
    (path,) = matrix_files(tmp_path)
    assert path.read_bytes() == reference_file(expected, tmp_path)


def test_a_fresh_corpus_with_repeated_texts_takes_its_batches_in_order_and_fills_the_repeats_at_the_end(tmp_path):
    unique = [f"passage {i}" for i in range(COMMIT_EVERY + 20)]
    texts = [*unique, unique[3], unique[COMMIT_EVERY + 1], unique[3]]  # three later places of two keys
    store = VectorStore(DiskCache(tmp_path), "fake/hash-16", 16, "document")
    added = []
    with store.building(keys := [text_key(t) for t in texts]) as build:
        fake = FakeEmbedder(16)
        for first in (0, COMMIT_EVERY):  # the batches embed_cached commits, in order
            part = unique[first : first + COMMIT_EVERY]
            store.commit([text_key(t) for t in part], fake.embed(part))
            added.append(int(build.filled.sum()))
        assert not build.position  # in order: no look-up table was made
        vectors = store.save_matrix(keys, build)
    assert added == [COMMIT_EVERY, len(unique)]  # the repeats were left to finish, which read them from the batches
    expected = FakeEmbedder(16).embed(texts)
    np.testing.assert_array_equal(vectors, expected)
    (path,) = matrix_files(tmp_path)
    assert path.read_bytes() == reference_file(expected, tmp_path)


def test_a_mixed_corpus_matches_the_embedder(tmp_path):
    texts = [f"passage {i}" for i in range(600)]
    fake = FakeEmbedder(16)
    embed_cached(fake, VectorStore(DiskCache(tmp_path), fake.name, 16, "document"), texts[::3], "document")
    wanted = texts + texts[:50]
    random.Random(3).shuffle(wanted)
    store = VectorStore(DiskCache(tmp_path), fake.name, 16, "document")
    vectors, stats = embed_cached(fake, store, wanted, "document", memory_map=True)
    assert (stats.embedded, stats.cache_hits) == (400, 200)
    np.testing.assert_array_equal(vectors, FakeEmbedder(16).embed(wanted))
    (path,) = matrix_files(tmp_path)
    np.testing.assert_array_equal(read_matrix(path, len(wanted)), vectors)


class Failing(FakeEmbedder):
    def embed(self, texts, input_type="document"):
        if len(self.calls) == 5:
            raise RuntimeError("the model fell over")
        return super().embed(texts, input_type)


@pytest.mark.parametrize("unnamed", [True, False])
def test_a_failed_build_leaves_no_file(tmp_path, monkeypatch, unnamed):
    if not unnamed:
        monkeypatch.delattr(os, "O_TMPFILE")  # a platform without unnamed files: a named temporary file
    texts = [f"passage {i}" for i in range(3 * COMMIT_EVERY)]
    store = VectorStore(DiskCache(tmp_path), "fake/hash-16", 16, "document")
    with pytest.raises(RuntimeError, match="fell over"):
        embed_cached(Failing(16), store, texts, "document", memory_map=True)
    assert len(stored_keys(store.cache, store.namespace)) == COMMIT_EVERY  # the first batch is kept
    assert matrix_files(tmp_path) == [] and (tmp_path / "vectors-matrix").is_dir()


def test_a_named_build_makes_the_same_file(tmp_path, monkeypatch):
    monkeypatch.delattr(os, "O_TMPFILE")
    rows = np.random.default_rng(2).standard_normal((3, 4), dtype=np.float32)
    keys = [bytes([i]) * 32 for i in range(3)]
    store = VectorStore(DiskCache(tmp_path), "m", 4, "document")
    with store.building(keys) as build:
        assert isinstance(build, MatrixBuild) and build.named is not None and build.named.exists()
        store.commit(keys, rows)
        store.save_matrix(keys, build)
    (path,) = matrix_files(tmp_path)
    assert path.read_bytes() == reference_file(rows, tmp_path)


def test_a_killed_build_leaves_no_file(tmp_path):
    texts = [f"passage {i}" for i in range(500)]
    (tmp_path / "texts.json").write_text(json.dumps(texts))
    (tmp_path / "go").touch()
    cache = tmp_path / "cache"
    writer = subprocess.Popen(  # mapped, 10 ms a text: a batch of 256 every 2.6 s
        [sys.executable, WRITER, str(cache), str(tmp_path / "texts.json"), "0", "1", str(tmp_path / "log")]
        + [str(tmp_path / "go"), "0.01"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not stored_keys(DiskCache(cache)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stored_keys(DiskCache(cache)) and writer.poll() is None  # one batch committed, the rest to come
        writer.send_signal(signal.SIGKILL)
        writer.communicate()
    finally:
        writer.kill()
        writer.wait()
    assert matrix_files(cache) == []  # its matrix was never named: nothing is left of it
    assert set(stored_keys(DiskCache(cache))) <= {text_key(t) for t in texts}


def test_an_error_of_the_writer_thread_is_raised_and_the_thread_ends(tmp_path):
    before = threading.active_count()
    keys = [bytes([i]) * 32 for i in range(4)]
    build = MatrixBuild(tmp_path / "ab" / "matrix", keys)
    with pytest.raises(ValueError, match="a batch holds 6-d vectors, not 5"), build:
        build.add(keys[:2], np.zeros((2, 5), np.float32))
        build.add(keys[2:], np.zeros((2, 6), np.float32))  # written by the thread: raised by finish
        build.finish(dict, lambda entry: None)
    assert threading.active_count() == before and os.listdir(tmp_path / "ab") == []
