"""Embedding through the disk cache: each distinct text is embedded once per model.

Vectors live in the cache as batches under the namespace
``vectors/<model>/<dimension>/<input type>``; a batch entry holds the sha256 of each
text and its vector. A batch is committed as soon as it is embedded, so a run that is
killed loses at most the batch in flight and a rerun sends only what is missing.

A corpus's vectors can also be kept as one matrix entry (``memory_map=True``) under
``vectors-matrix/<model>/<dimension>/<input type>``, keyed by the texts' keys in order: the
entry file is ``MAGIC + sha256(payload) + payload`` like every cache entry, the payload a
28-byte header (b"RBM1", n, dim, zero padding) then (n, dim) float32 rows, so the rows start
at byte 64 and are memory-mapped read-only instead of read. A later run of the same corpus
maps that file and never loads the batches; pages are read on first touch and shared by
every process on the machine.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from rag_bench.cache import MAGIC, DiskCache, atomic_write, digest
from rag_bench.embed.base import Embedder

COMMIT_EVERY = 64  # texts per cache entry
MATRIX_HEADER = struct.Struct("<4sII16x")  # tag, n, dim; 28 bytes, so rows start at byte 64 of the file
MATRIX_TAG = b"RBM1"
ROWS_PER_WRITE = 4096  # rows copied per write while saving a matrix


@dataclass
class EmbedStats:
    """What one stage asked for: texts newly embedded vs served from the cache."""

    embedded: int = 0
    cache_hits: int = 0

    def add(self, other: EmbedStats) -> None:
        self.embedded += other.embedded
        self.cache_hits += other.cache_hits


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def pack(keys: list[bytes], vectors: np.ndarray) -> bytes:
    """Batch payload: n, dim (uint32 each), n 32-byte keys, then (n, dim) float32."""
    n, dim = vectors.shape
    return struct.pack("<II", n, dim) + b"".join(keys) + np.ascontiguousarray(vectors, np.float32).tobytes()


def unpack(payload: bytes) -> tuple[list[bytes], np.ndarray]:
    n, dim = struct.unpack_from("<II", payload)
    keys = [payload[8 + 32 * i : 8 + 32 * (i + 1)] for i in range(n)]
    vectors = np.frombuffer(payload, dtype=np.float32, offset=8 + 32 * n, count=n * dim).reshape(n, dim)
    return keys, vectors


class VectorStore:
    """The cached vectors of one (model, dimension, input type)."""

    def __init__(self, cache: DiskCache, model: str, dimension: int, input_type: str) -> None:
        self.cache = cache
        self.namespace = f"vectors/{model.replace('/', '--')}/{dimension}/{input_type}"
        self._known: dict[bytes, np.ndarray] | None = None

    def known(self, refresh: bool = False) -> dict[bytes, np.ndarray]:
        """Every cached vector of this namespace by text key.

        Batches are read once and kept in memory. ``refresh`` also reads the batches that
        appeared since (written by another store on the same cache, in this process or
        another): callers refresh before embedding, so no text is embedded twice because
        one store had not seen another's work.
        """
        if self._known is None:
            self._known, self._loaded = {}, set()
            refresh = True
        if refresh:
            for entry, payload in self.cache.entries(self.namespace, skip=self._loaded):
                keys, vectors = unpack(payload)
                self._known.update(zip(keys, vectors, strict=True))
                self._loaded.add(entry)
        return self._known

    def commit(self, keys: list[bytes], vectors: np.ndarray) -> None:
        entry = hashlib.sha256(b"".join(keys)).hexdigest()
        self.cache.put(self.namespace, entry, pack(keys, vectors))
        if self._known is None:
            self.known()
        self._known.update(zip(keys, vectors, strict=True))
        self._loaded.add(entry)

    def _matrix_path(self, keys: list[bytes]) -> Path:
        return self.cache.path(self.namespace.replace("vectors/", "vectors-matrix/", 1), digest(b"".join(keys)))

    def matrix(self, keys: list[bytes]) -> np.ndarray | None:
        """The saved (len(keys), dim) matrix of exactly these keys, memory-mapped read-only; None if absent.

        The checksum is verified by streaming the file through sha256 (page cache, not this
        process's memory); a damaged entry is deleted and reported as absent.
        """
        path = self._matrix_path(keys)
        try:
            with open(path, "rb") as handle:
                head = handle.read(len(MAGIC) + 32 + MATRIX_HEADER.size)
                check = hashlib.sha256(head[len(MAGIC) + 32 :])
                for piece in iter(lambda: handle.read(1 << 24), b""):
                    check.update(piece)
        except FileNotFoundError:
            return None
        ok = len(head) == len(MAGIC) + 32 + MATRIX_HEADER.size and head[:4] == MAGIC and check.digest() == head[4:36]
        tag, n, dim = MATRIX_HEADER.unpack(head[36:]) if ok else (b"", 0, 0)
        if not ok or tag != MATRIX_TAG or n != len(keys) or path.stat().st_size != len(head) + 4 * n * dim:
            self.cache.corrupt += 1
            path.unlink(missing_ok=True)
            return None
        return np.memmap(path, dtype=np.float32, mode="r", offset=len(head), shape=(n, dim))

    def save_matrix(self, keys: list[bytes]) -> np.ndarray:
        """Write the known vectors of ``keys`` as one matrix entry (atomically), then map it."""
        known = self.known()
        dim = len(next(iter(known.values())))
        path = self._matrix_path(keys)

        def write(handle) -> None:
            header = MATRIX_HEADER.pack(MATRIX_TAG, len(keys), dim)
            check = hashlib.sha256(header)
            handle.write(MAGIC + bytes(32) + header)
            for first in range(0, len(keys), ROWS_PER_WRITE):
                block = np.stack([known[k] for k in keys[first : first + ROWS_PER_WRITE]]).astype(np.float32)
                check.update(block.data)
                handle.write(block.data)
            handle.seek(len(MAGIC))
            handle.write(check.digest())  # the checksum covers header and rows, as in every cache entry

        atomic_write(path, write)
        return np.memmap(
            path, dtype=np.float32, mode="r", offset=len(MAGIC) + 32 + MATRIX_HEADER.size, shape=(len(keys), dim)
        )

    def forget(self) -> None:
        """Drop the in-memory vectors (they are read again from the cache when next needed)."""
        self._known = None


def embed_cached(
    embedder: Embedder,
    store: VectorStore,
    texts: Sequence[str],
    input_type: str,
    label: str = "embedding",
    memory_map: bool = False,
) -> tuple[np.ndarray, EmbedStats]:
    """(len(texts), dim) float32 vectors of ``texts``, embedding only texts the cache lacks.

    With ``memory_map`` the result is a read-only memory map of one cache entry holding these
    texts' vectors (written on first use); the store then drops its in-memory copy, so a large
    corpus is held once, by the page cache, rather than twice.
    """
    keys = [text_key(t) for t in texts]
    if memory_map and keys:
        mapped = store.matrix(keys)
        if mapped is not None:
            return mapped, EmbedStats(embedded=0, cache_hits=len(texts))
    todo = _missing(store.known(), keys, texts)
    if todo:  # another store may have embedded some of them meanwhile
        todo = _missing(store.known(refresh=True), keys, texts)
    known = store.known()
    with tqdm(total=len(todo), desc=label, unit="text", disable=not todo, leave=False) as bar:
        for first in range(0, len(todo), COMMIT_EVERY):
            batch = todo[first : first + COMMIT_EVERY]
            vectors = embedder.embed([t for _, t in batch], input_type)
            store.commit([k for k, _ in batch], vectors)
            bar.update(len(batch))
    stats = EmbedStats(embedded=len(todo), cache_hits=len(texts) - len(todo))
    if memory_map and keys:
        mapped = store.save_matrix(keys)
        store.forget()
        return mapped, stats
    out = np.stack([known[k] for k in keys]) if keys else np.zeros((0, embedder.dimension), np.float32)
    return out, stats


def _missing(known: dict[bytes, np.ndarray], keys: list[bytes], texts: Sequence[str]) -> list[tuple[bytes, str]]:
    """``(key, text)`` of each distinct text not in ``known``, in first-seen order."""
    missing: dict[bytes, str] = {}
    for key, text in zip(keys, texts, strict=True):
        if key not in known:
            missing.setdefault(key, text)
    return list(missing.items())
