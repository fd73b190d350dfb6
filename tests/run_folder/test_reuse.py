"""The run cache: a finished run's outputs served again, byte for byte, only under the same key."""

import json
import os
import pickle
from dataclasses import dataclass, field

import rag_bench.run_folder.reuse as reuse
from rag_bench.core.cache import DiskCache

STATS = {
    "chunks": 7,
    "embedded": 5,
    "cache_hits": 3,
    "tokens": 120,
    "cost_usd": 0.5,
    "api": {"embedder": {"requests": 2}},
    "reused": {"chunks": False, "bm25": False},
    "seconds": {"load": 0.2, "bm25": 1.5},
    "index_bytes": 640,
    "work": {"embedded_texts": 9},
}


def finished_run(folder):
    """A run folder's files as write_outputs leaves them (metrics.json last); their paths."""
    folder.mkdir()
    files = {
        "config.yaml": b"tau: 0.5\n",
        "report.html": "<p>caf\u00e9</p>".encode(),
        "run.trec": b"q1 Q0 d:0-9 1 2.5 rag-bench\n",
        "metrics.json": json.dumps({"metrics": {"recall@5": 0.25}, "stats": STATS}).encode(),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return [folder / name for name in files]


def test_a_kept_run_is_served_byte_for_byte_with_stats_of_what_this_run_did(tmp_path):
    cache, written = DiskCache(tmp_path / "cache"), finished_run(tmp_path / "first")
    reuse.keep(cache, "k1", written)
    out = tmp_path / "second"
    out.mkdir()
    payload = reuse.serve(cache, "k1", out)
    for path in written[:-1]:
        assert (out / path.name).read_bytes() == path.read_bytes()
    assert json.loads((out / "metrics.json").read_text()) == payload
    assert payload["metrics"] == {"recall@5": 0.25}
    stats = payload["stats"]
    done = (stats["embedded"], stats["cache_hits"], stats["tokens"], stats["cost_usd"], stats["api"])
    assert done == (0, 0, 0, 0, {})
    assert stats["reused"] == {"run": True} and list(stats["seconds"]) == ["run"] and stats["seconds"]["run"] < 5
    assert (stats["chunks"], stats["index_bytes"], stats["work"]) == (7, 640, {"embedded_texts": 9})  # the config's


def test_a_miss_a_damaged_entry_and_a_foreign_one_are_not_served(tmp_path):
    cache, out = DiskCache(tmp_path / "cache"), tmp_path / "out"
    out.mkdir()
    assert reuse.serve(cache, "absent", out) is None
    reuse.keep(cache, "k1", finished_run(tmp_path / "first"))
    entry = cache.path(reuse.NAMESPACE, "k1")
    entry.write_bytes(entry.read_bytes()[:-1])  # a torn copy: fails its checksum, and is dropped
    assert reuse.serve(cache, "k1", out) is None and not entry.exists()
    for files in ({"../escape.txt": b"x", "metrics.json": b"{}"}, {"report.html": b"x"}, ["metrics.json"]):
        cache.put(reuse.NAMESPACE, "k2", pickle.dumps(files))
        assert reuse.serve(cache, "k2", out) is None
    assert list(out.iterdir()) == [] and not (tmp_path / "escape.txt").exists()


def test_a_kept_run_is_not_synced_to_the_disk(tmp_path, monkeypatch):
    """The kept copy is a checksummed cache entry (a torn one is recomputed, above): no fsync of its tens of MB."""
    cache, written = DiskCache(tmp_path / "cache"), finished_run(tmp_path / "first")
    synced = []
    monkeypatch.setattr(os, "fsync", synced.append)
    reuse.keep(cache, "k1", written)
    assert synced == []
    assert pickle.loads(cache.get(reuse.NAMESPACE, "k1")) == {p.name: p.read_bytes() for p in written}


@dataclass
class Chunker:
    size: int = 800
    overlap: float = 0.0


@dataclass
class Settings:
    tau: float = 0.5
    ks: list = field(default_factory=lambda: [1, 5])
    chunker: Chunker = field(default_factory=Chunker)


def test_the_key_follows_every_setting_the_files_and_the_code(monkeypatch):
    prints = {"dataset": "aa"}
    base = reuse.run_key(Settings(), prints)
    assert reuse.run_key(Settings(), dict(prints)) == base
    changed = [
        Settings(tau=0.4),
        Settings(ks=[1, 5, 10]),
        Settings(chunker=Chunker(size=400)),
        Settings(chunker=Chunker(overlap=0)),  # 0 and 0.0 are written differently: another key
    ]
    assert len({reuse.run_key(s, prints) for s in changed} | {base}) == 5
    assert reuse.run_key(Settings(), {"dataset": "ab"}) != base
    assert reuse.run_key(Settings(), {"dataset": "aa", "chunker.contexts": "cc"}) != base
    monkeypatch.setattr(reuse, "code_version", lambda: "an edited rag-bench")
    assert reuse.run_key(Settings(), prints) != base
