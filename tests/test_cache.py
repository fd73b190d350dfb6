import hashlib
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import rag_bench.core.cache
import rag_bench.core.files
from rag_bench.core.cache import DiskCache, digest, source_digest
from rag_bench.core.files import is_write_fault
from rag_bench.embed.cached import COMMIT_EVERY, EMBED_EVERY, embed_cached
from rag_bench.embed.store import VectorStore, text_key
from rag_bench.testing import FakeEmbedder


def test_roundtrip_and_get_or_compute(tmp_path):
    cache = DiskCache(tmp_path)
    assert cache.get("ns", "ab12") is None
    cache.put("ns", "ab12", b"payload")
    assert cache.get("ns", "ab12") == b"payload"
    calls = []
    value, cached = cache.get_or_compute("obj", digest("k", 1), lambda: calls.append(1) or {"x": [1, 2]})
    again, cached_again = cache.get_or_compute("obj", digest("k", 1), lambda: calls.append(1) or {})
    assert (value, cached, again, cached_again, len(calls)) == ({"x": [1, 2]}, False, {"x": [1, 2]}, True, 1)


def test_pickled_values_are_read_back_only_by_the_code_that_computed_them(tmp_path, monkeypatch):
    """A candidate list cached by an older rag-bench (other results, or a class without a newer field) is recomputed."""
    cache, calls = DiskCache(tmp_path), []
    monkeypatch.setattr(rag_bench.core.cache, "code_version", lambda: "older")
    cache.get_or_compute("candidates", "k", lambda: calls.append(1) or "old result")
    monkeypatch.setattr(rag_bench.core.cache, "code_version", lambda: "newer")
    value, cached = cache.get_or_compute("candidates", "k", lambda: calls.append(1) or "new result")
    assert (value, cached, len(calls)) == ("new result", False, 2)
    monkeypatch.setattr(rag_bench.core.cache, "code_version", lambda: "older")
    assert cache.get_or_compute("candidates", "k", lambda: calls.append(1))[0] == "old result"  # each its own


def test_the_code_version_follows_every_source_file_and_nothing_else(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "assets").mkdir()
    (package / "a.py").write_text("x = 1\n")
    (package / "sub" / "b.py").write_text("y = 2\n")
    (package / "sub" / "fast.c").write_text("int x;\n")
    (package / "assets" / "page.js").write_text("let x = 1;\n")
    before = source_digest(package)
    (package / "sub" / "__pycache__" / "b.cpython-311.pyc").write_bytes(b"compiled")
    (package / "sub" / "fast.cpython-311-x86_64-linux-gnu.so").write_bytes(b"built")
    (package / "notes.txt").write_text("not code")
    assert source_digest(package) == before
    digests = set()
    for path, text in (("sub/b.py", "y = 3\n"), ("sub/fast.c", "int y;\n"), ("assets/page.js", "let x = 2;\n")):
        (package / path).write_text(text)
        digests.add(source_digest(package))
    assert before not in digests and len(digests) == 3  # each edit changes the digest
    cache = rag_bench.core.cache
    assert cache.code_version() == digest(source_digest(Path(cache.__file__).parents[1]), cache.library_versions())


def test_the_remembered_code_version_is_recomputed_when_a_source_or_an_installed_package_changes(tmp_path, monkeypatch):
    import os

    cache = rag_bench.core.cache
    package, folder, site = tmp_path / "pkg", tmp_path / "kept", tmp_path / "site"
    package.mkdir()
    site.mkdir()
    (package / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(sys, "path", [str(site)])
    old = 1_000_000_000_000_000_000  # an mtime long past: the value may be kept
    os.utime(package / "a.py", ns=(old, old))
    calls = []
    monkeypatch.setattr(cache, "library_versions", lambda: calls.append(1) or {"numpy": "1.0"})
    first = cache.remembered_code_version(package, folder)
    assert first == digest(source_digest(package), {"numpy": "1.0"}) and len(calls) == 1
    assert cache.remembered_code_version(package, folder) == first and len(calls) == 1  # read back, not computed
    (package / "a.py").write_text("x = 2\n")  # an edited source: computed again, and differs
    os.utime(package / "a.py", ns=(old + 1, old + 1))
    second = cache.remembered_code_version(package, folder)
    assert second != first and len(calls) == 2
    for version, change in (("2.0", "installed"), ("2.1", "upgraded")):
        monkeypatch.setattr(cache, "library_versions", lambda v=version: calls.append(1) or {"numpy": v})
        if change == "installed":  # the import path gains a package's metadata
            (site / "numpy-2.0.dist-info").mkdir()
        else:  # replaced: the folder's mtime moves
            (site / "numpy-2.0.dist-info").rename(site / "numpy-2.1.dist-info")
            os.utime(site, ns=(old + 2, old + 2))
        now = cache.remembered_code_version(package, folder)
        assert now == digest(source_digest(package), {"numpy": version}), change
    assert len(calls) == 4
    kept = next(p for p in folder.iterdir() if p.read_text() == now)
    kept.write_text("torn")
    assert cache.remembered_code_version(package, folder) == now and len(calls) == 5  # a torn entry: computed


def test_a_source_edited_just_now_is_not_remembered(tmp_path, monkeypatch):
    cache = rag_bench.core.cache
    package, folder = tmp_path / "pkg", tmp_path / "kept"
    package.mkdir()
    (package / "a.py").write_text("x = 1\n")  # mtime now: within a timestamp tick, an edit could go unseen
    assert cache.remembered_code_version(package, folder) == cache.computed_code_version(package)
    assert not folder.exists()


def test_only_the_newest_remembered_code_versions_are_kept(tmp_path):
    """Each edit or install remembers a new code version; the folder keeps the newest KEPT_CODE_STATES of them."""
    import os

    cache = rag_bench.core.cache
    package, folder = tmp_path / "pkg", tmp_path / "kept"
    package.mkdir()
    folder.mkdir()
    old = 1_000_000_000_000_000_000
    for i in range(cache.KEPT_CODE_STATES + 5):  # states remembered before, the oldest first
        (folder / f"state-{i:03d}").write_text("0" * 64)
        os.utime(folder / f"state-{i:03d}", ns=(old + i, old + i))
    (package / "a.py").write_text("x = 1\n")
    os.utime(package / "a.py", ns=(old, old))
    now = cache.remembered_code_version(package, folder)
    left = sorted(p.name for p in folder.iterdir())
    assert len(left) == cache.KEPT_CODE_STATES and any((folder / name).read_text() == now for name in left)
    states = [name for name in left if name.startswith("state-")]
    assert states == [f"state-{i:03d}" for i in range(6, cache.KEPT_CODE_STATES + 5)]  # the six oldest went
    assert cache.remembered_code_version(package, folder) == now  # read back


def test_digest_separates_parts():
    assert digest("ab", "c") != digest("a", "bc")


def test_corrupt_entry_is_detected_dropped_and_recomputed(tmp_path):
    cache = DiskCache(tmp_path)
    cache.put("ns", "cafe", b"0123456789")
    path = cache.path("ns", "cafe")
    blob = bytearray(path.read_bytes())
    blob[-1] ^= 0xFF  # flip one payload byte
    path.write_bytes(bytes(blob))
    assert cache.get("ns", "cafe") is None
    assert cache.corrupt == 1 and not path.exists()
    cache.put("ns", "cafe", b"0123456789")
    path.write_bytes(path.read_bytes()[:20])  # truncated write
    assert list(cache.entries("ns")) == [] and cache.corrupt == 2


def test_computed_entries_are_not_synced_and_a_torn_one_is_computed_again(tmp_path, monkeypatch):
    synced, calls = [], []
    real = os.fsync
    monkeypatch.setattr(rag_bench.core.files.os, "fsync", lambda fd: synced.append(fd) or real(fd))
    cache = DiskCache(tmp_path)
    assert cache.get_or_compute("chunks", "k", lambda: calls.append(1) or [1, 2, 3]) == ([1, 2, 3], False)
    assert synced == [] and cache.get_or_compute("chunks", "k", lambda: calls.append(1) or [9]) == ([1, 2, 3], True)
    (path,) = [p for p in (tmp_path / "chunks").rglob("*") if p.is_file()]
    path.write_bytes(path.read_bytes()[:-3])  # what a power cut may leave of an unsynced write
    assert cache.get_or_compute("chunks", "k", lambda: calls.append(1) or [1, 2, 3]) == ([1, 2, 3], False)
    assert calls == [1, 1] and cache.corrupt == 1
    cache.put("candidates", "k", b"v")
    assert len(synced) == 1  # put itself still syncs


WRITER = """
import sys
from rag_bench.core.cache import DiskCache
cache = DiskCache(sys.argv[1])
for i in range(300):
    cache.put("ns", f"{i % 10:02d}key", (f"value-{i % 10}" * 1000).encode())
"""


def test_concurrent_writers_never_leave_a_torn_entry(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)]) for _ in range(4)]
    reader = DiskCache(tmp_path)
    while any(p.poll() is None for p in procs):
        for key, payload in reader.entries("ns"):  # read while they write
            assert payload == (f"value-{int(key[:2])}" * 1000).encode()
    for p in procs:
        assert p.wait(timeout=60) == 0
    assert reader.corrupt == 0
    assert len(list(reader.entries("ns"))) == 10
    assert not list((tmp_path / "ns").glob("*/.tmp-*"))


class FailingEmbedder(FakeEmbedder):
    """Fails on its n-th call, like a run killed mid-embedding."""

    def __init__(self, fail_on: int) -> None:
        super().__init__(16)
        self.fail_on = fail_on

    def embed(self, texts, input_type="document"):
        if len(self.calls) + 1 == self.fail_on:
            raise KeyboardInterrupt
        return super().embed(texts, input_type)


def test_finished_batches_survive_an_interrupted_run(tmp_path):
    texts = [f"text number {i}" for i in range(3 * COMMIT_EVERY + 5)]
    # killed on the second embedder call of the third entry: two entries committed, the third's first call lost
    failing = FailingEmbedder(fail_on=2 * (COMMIT_EVERY // EMBED_EVERY) + 2)
    with pytest.raises(KeyboardInterrupt):
        embed_cached(failing, VectorStore(DiskCache(tmp_path), failing.name, 16, "document"), texts, "document")
    fresh = FakeEmbedder(16)
    vectors, stats = embed_cached(
        fresh, VectorStore(DiskCache(tmp_path), fresh.name, 16, "document"), texts, "document"
    )
    assert stats.embedded == len(texts) - 2 * COMMIT_EVERY and stats.cache_hits == 2 * COMMIT_EVERY
    np.testing.assert_array_equal(vectors, FakeEmbedder(16).embed(texts))


def test_each_distinct_text_is_embedded_once(tmp_path):
    fake = FakeEmbedder(16)
    store = VectorStore(DiskCache(tmp_path), fake.name, 16, "query")
    _, stats = embed_cached(fake, store, ["a", "b", "a"], "query")
    # "a" twice: embedded once, and its repeat is not "from the cache" (nothing was cached before)
    assert (stats.embedded, stats.cache_hits, fake.calls) == (2, 0, [(2, "query")])
    _, stats = embed_cached(fake, VectorStore(DiskCache(tmp_path), fake.name, 16, "query"), ["b", "a"], "query")
    assert (stats.embedded, stats.cache_hits) == (0, 2)


def test_corpus_vectors_are_memory_mapped_and_a_damaged_matrix_is_rebuilt(tmp_path):
    texts = [f"chunk {i}" for i in range(100)]
    fake = FakeEmbedder(16)
    first, stats = embed_cached(
        fake, VectorStore(DiskCache(tmp_path), fake.name, 16, "document"), texts, "document", memory_map=True
    )
    assert isinstance(first, np.memmap) and stats.embedded == 100
    np.testing.assert_array_equal(first, FakeEmbedder(16).embed(texts))
    store = VectorStore(DiskCache(tmp_path), fake.name, 16, "document")
    again, stats = embed_cached(fake, store, texts, "document", memory_map=True)
    assert isinstance(again, np.memmap) and stats.embedded == 0 and not again.flags.writeable
    matrix = next(p for p in (tmp_path / "vectors-matrix").rglob("*") if p.is_file())
    blob = bytearray(matrix.read_bytes())
    blob[-1] ^= 0xFF
    matrix.write_bytes(bytes(blob))
    cache = DiskCache(tmp_path)
    rebuilt, stats = embed_cached(
        fake, VectorStore(cache, fake.name, 16, "document"), texts, "document", memory_map=True
    )
    assert cache.corrupt == 1 and stats.embedded == 0  # rebuilt from the batches, nothing re-embedded
    np.testing.assert_array_equal(rebuilt, FakeEmbedder(16).embed(texts))


def test_two_stores_on_one_namespace_see_each_others_work(tmp_path):
    cache, fake = DiskCache(tmp_path), FakeEmbedder(16)
    chunks = VectorStore(cache, fake.name, 16, "document")  # e.g. the dense stage's store
    sentences = VectorStore(cache, fake.name, 16, "document")  # e.g. a reranker's own store
    embed_cached(fake, chunks, ["alpha", "beta"], "document")
    embed_cached(fake, sentences, ["beta", "gamma"], "document")  # beta comes from the first store's batch
    _, stats = embed_cached(fake, chunks, ["gamma", "alpha"], "document")  # gamma from the second's
    assert stats.embedded == 0 and [n for n, _ in fake.calls] == [2, 1]


def test_mapped_matrix_places_rows_by_position_from_out_of_order_batches(tmp_path):
    texts = [f"chunk {i}" for i in range(150)]
    fake = FakeEmbedder(16)
    store = VectorStore(DiskCache(tmp_path), fake.name, 16, "document")
    embed_cached(fake, store, texts[100:0:-1], "document")  # chunks 100..1: batches of 64 and 36, rows reversed
    wanted = texts + texts[5:15]  # chunk 0 and chunks 101-149 missing; chunks 5-14 twice
    mapped, stats = embed_cached(fake, store, wanted, "document", memory_map=True)
    # 150 distinct texts (chunks 5-14 repeated): 50 embedded, the other 100 from the cache
    assert isinstance(mapped, np.memmap) and (stats.embedded, stats.cache_hits) == (50, 100)
    assert fake.calls == [(64, "document"), (36, "document"), (50, "document")]
    np.testing.assert_array_equal(mapped, FakeEmbedder(16).embed(wanted))
    plain, stats = embed_cached(fake, VectorStore(DiskCache(tmp_path), fake.name, 16, "document"), wanted, "document")
    assert (stats.embedded, stats.cache_hits) == (0, 150)
    np.testing.assert_array_equal(plain, mapped)
    assert len(store.known()) == 150  # the store dropped its vectors; they are read again when asked for


MATRIX_PEAKS = """
import json, sys, threading, tracemalloc
import numpy as np
from rag_bench.core.cache import DiskCache
from rag_bench.embed.cached import COMMIT_EVERY, embed_cached
from rag_bench.embed.store import VectorStore, text_key
from rag_bench.testing import FakeEmbedder

n, dim = 4096, 2048  # 32 MiB of vectors in entries of COMMIT_EVERY
texts = [f"chunk {i}" for i in range(n)]
keys = [text_key(t) for t in texts]
fill = VectorStore(DiskCache(sys.argv[1]), "fixed", dim, "document")
rows = np.random.default_rng(0).standard_normal((n, dim), dtype=np.float32)
for first in range(0, n, COMMIT_EVERY):
    fill.commit(keys[first : first + COMMIT_EVERY], rows[first : first + COMMIT_EVERY])
peaks = {}
for variant in (False, True):
    assert threading.active_count() == 1  # tracemalloc counts every thread's allocations: there is none other
    tracemalloc.start()
    store = VectorStore(DiskCache(sys.argv[1]), "fixed", dim, "document")
    vectors, stats = embed_cached(FakeEmbedder(dim), store, texts, "document", memory_map=variant)
    peaks[str(variant)] = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert stats.embedded == 0
    np.testing.assert_array_equal(vectors, rows)
    del vectors, store
print(json.dumps({"peaks": peaks, "corpus": rows.nbytes}))
"""


def test_building_the_matrix_holds_about_one_batch_not_the_corpus(tmp_path):
    # Measured in a fresh process: tracemalloc's peak counts the allocations of every thread, and a thread an
    # earlier test left running (a fake server, an executor) once added 3 MB here.
    done = subprocess.run(
        [sys.executable, "-c", MATRIX_PEAKS, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    measured = json.loads(done.stdout.splitlines()[-1])
    peaks, corpus = measured["peaks"], measured["corpus"]
    assert corpus == 4096 * 2048 * 4
    assert peaks["False"] > corpus and peaks["True"] < corpus / 4  # the reference holds every vector


def test_a_batch_lost_after_it_was_indexed_is_embedded_again(tmp_path):
    texts = [f"chunk {i}" for i in range(COMMIT_EVERY + 36)]
    fake, cache = FakeEmbedder(16), DiskCache(tmp_path)
    store = VectorStore(cache, fake.name, 16, "document")
    embed_cached(fake, store, texts, "document", memory_map=True)  # entries of COMMIT_EVERY and 36, then the matrix
    for path in (tmp_path / "vectors-matrix").rglob("*"):
        if path.is_file():
            path.unlink()
    keys = b"".join(text_key(t) for t in texts[COMMIT_EVERY:])
    second = cache.path(store.namespace, hashlib.sha256(keys).hexdigest())
    second.write_bytes(second.read_bytes()[:100])  # torn: the store's index still names it
    again, stats = embed_cached(fake, store, texts, "document", memory_map=True)
    assert (stats.embedded, stats.cache_hits, cache.corrupt) == (36, COMMIT_EVERY, 1)
    calls = [(EMBED_EVERY, "document")] * (COMMIT_EVERY // EMBED_EVERY)
    assert fake.calls == [*calls, (36, "document"), (36, "document")]
    np.testing.assert_array_equal(again, FakeEmbedder(16).embed(texts))


def test_a_mapped_store_sees_batches_written_since_it_indexed(tmp_path):
    cache, fake = DiskCache(tmp_path), FakeEmbedder(16)
    chunks = VectorStore(cache, fake.name, 16, "document")
    embed_cached(fake, chunks, ["alpha", "beta"], "document", memory_map=True)
    embed_cached(fake, VectorStore(cache, fake.name, 16, "document"), ["gamma"], "document")  # another store
    vectors, stats = embed_cached(fake, chunks, ["gamma", "alpha", "gamma"], "document", memory_map=True)
    assert (stats.embedded, stats.cache_hits) == (0, 2) and [n for n, _ in fake.calls] == [2, 1]
    np.testing.assert_array_equal(vectors, FakeEmbedder(16).embed(["gamma", "alpha", "gamma"]))


def test_vectors_made_by_other_embedding_code_are_not_served(tmp_path):
    """The store is named by ``cache_name`` when an embedder has one: the local embedder's carries a
    digest of its code, so vectors of the same model made by other code are embedded again, not reused."""
    from rag_bench.core.workspace import Workspace
    from rag_bench.embed.base import vector_cache_name
    from rag_bench.embed.local import CODE_DIGEST, MiniLMEmbedder
    from rag_bench.embed.store import vector_store

    assert vector_cache_name(MiniLMEmbedder()) == f"{MiniLMEmbedder.name}+{CODE_DIGEST}" and len(CODE_DIGEST) == 12
    old, new = FakeEmbedder(16), FakeEmbedder(16)
    old.cache_name, new.cache_name = f"{old.name}+code-a", f"{new.name}+code-b"  # same model, other code
    _, first = embed_cached(old, vector_store(Workspace.open(tmp_path), old, "query"), ["a", "b"], "query")
    _, again = embed_cached(old, vector_store(Workspace.open(tmp_path), old, "query"), ["a"], "query")
    _, other = embed_cached(new, vector_store(Workspace.open(tmp_path), new, "query"), ["a", "b"], "query")
    assert (first.embedded, again.embedded, again.cache_hits, other.embedded) == (2, 0, 1, 2)
    assert sorted(p.name for p in (tmp_path / "vectors").iterdir()) == ["fake--hash-16+code-a", "fake--hash-16+code-b"]


def test_a_set_of_files_is_read_back_only_when_every_name_is_a_plain_file_name(tmp_path):
    cache = DiskCache(tmp_path)
    cache.put_files("runs", "k", {"report.html": b"<p>", "run.trec": b""})
    assert cache.get_files("runs", "k") == {"report.html": b"<p>", "run.trec": b""}
    assert cache.get_files("runs", "absent") is None
    for files in ({"../up": b"x"}, {"a/b": b"x"}, {"..": b"x"}, {"a": "text, not bytes"}):
        cache.put_files("runs", "bad", files)
        assert cache.get_files("runs", "bad") is None, files
    cache.put("runs", "list", pickle.dumps([b"x"]))
    assert cache.get_files("runs", "list") is None


def test_a_matrix_is_checksummed_once_per_process_and_file_but_a_change_is_caught(tmp_path, monkeypatch):
    from rag_bench.embed import matrix as matrix_file

    texts = [f"chunk {i}" for i in range(40)]
    fake = FakeEmbedder(8)
    store = VectorStore(DiskCache(tmp_path), fake.name, 8, "document")
    embed_cached(fake, store, texts, "document", memory_map=True)
    path = next(p for p in (tmp_path / "vectors-matrix").rglob("*") if p.is_file())
    read = matrix_file.read_matrix(path, len(texts))  # written just now (within RACY_NS): verified, not remembered
    np.testing.assert_array_equal(read, fake.embed(texts))
    assert not any(identity[0] == str(path) for identity in matrix_file.VERIFIED)
    monkeypatch.setattr(matrix_file, "RACY_NS", 0)  # as if it were written long ago
    matrix_file.read_matrix(path, len(texts))
    assert any(identity[0] == str(path) for identity in matrix_file.VERIFIED)
    time.sleep(0.05)  # a later timestamp tick
    blob = bytearray(path.read_bytes())
    blob[-1] ^= 0xFF  # a damaged row, size unchanged: the file's ctime and mtime move, so it is read again
    path.write_bytes(bytes(blob))
    assert matrix_file.read_matrix(path, len(texts)) is matrix_file.DAMAGED
    assert not any(identity[0] == str(path) for identity in matrix_file.VERIFIED)


def test_a_batch_that_cannot_be_written_names_its_file_and_leaves_no_temporary_file(tmp_path):
    store = VectorStore(DiskCache(tmp_path), "fake/hash-4", 4, "document")
    keys = [text_key("a"), text_key("b")]
    entry = hashlib.sha256(b"".join(keys)).hexdigest()
    path = store.cache.path(store.namespace, entry)
    path.parent.parent.mkdir(parents=True)
    path.parent.write_text("a file where the sub-folder goes")
    with pytest.raises(OSError) as caught:
        store.commit(keys, np.ones((2, 4), np.float32))
    assert caught.value.filename == str(path) and is_write_fault(caught.value)
    path.parent.unlink()
    store.commit(keys, np.ones((2, 4), np.float32))  # the sub-folder made on its first entry
    assert [p.name for p in path.parent.iterdir()] == [entry]  # whole, and no temporary file beside it
    assert store.cache.get(store.namespace, entry)[8 + 64 :] == np.ones((2, 4), np.float32).tobytes()
