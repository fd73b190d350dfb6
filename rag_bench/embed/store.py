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
every process on the machine. The first run writes the matrix without holding the corpus's
vectors: the store indexes where each key's vector is (batch entry, row), and the matrix is
filled one batch entry at a time, each row written at its positions, then checksummed.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Container, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
from tqdm import tqdm

from rag_bench.cache import MAGIC, DiskCache, atomic_write, digest
from rag_bench.embed.base import Embedder

COMMIT_EVERY = 64  # texts per cache entry
MATRIX_HEADER = struct.Struct("<4sII16x")  # tag, n, dim; 28 bytes, so rows start at byte 64 of the file
MATRIX_TAG = b"RBM1"
MATRIX_START = len(MAGIC) + 32 + MATRIX_HEADER.size  # 64: byte offset of the rows in a matrix file
READ_SIZE = 1 << 20  # bytes read at a time while checksumming a matrix file


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
        self._held: set[str] = set()  # batch entries whose vectors are in _known
        self._where: dict[bytes, tuple[str, int]] = {}  # text key -> (batch entry, row)
        self._indexed: set[str] = set()  # batch entries in _where
        self._scanned = False  # whether every batch entry has been indexed once

    def known(self, refresh: bool = False) -> dict[bytes, np.ndarray]:
        """Every cached vector of this namespace by text key.

        Batches are read once and kept in memory. ``refresh`` also reads the batches that
        appeared since (written by another store on the same cache, in this process or
        another): callers refresh before embedding, so no text is embedded twice because
        one store had not seen another's work.
        """
        if self._known is None:
            self._known, self._held = {}, set()
            refresh = True
        if refresh:
            for entry, payload in self.cache.entries(self.namespace, skip=self._held):
                keys, vectors = unpack(payload)
                self._note(entry, keys)
                self._known.update(zip(keys, vectors, strict=True))
                self._held.add(entry)
            self._scanned = True
        return self._known

    def index(self, refresh: bool = False) -> dict[bytes, tuple[str, int]]:
        """Where each cached vector is, ``(batch entry, row)`` by text key, holding no vectors.

        Batches are read one at a time and only their keys kept; ``refresh`` as in ``known``.
        """
        if refresh or not self._scanned:
            for entry, payload in self.cache.entries(self.namespace, skip=self._indexed):
                self._note(entry, unpack(payload)[0])
            self._scanned = True
        return self._where

    def commit(self, keys: list[bytes], vectors: np.ndarray) -> None:
        entry = hashlib.sha256(b"".join(keys)).hexdigest()
        self.cache.put(self.namespace, entry, pack(keys, vectors))
        self._indexed.discard(entry)  # the same keys written again: their rows are this entry's now
        self._note(entry, keys)
        if self._known is not None:
            self._known.update(zip(keys, vectors, strict=True))
            self._held.add(entry)

    def _note(self, entry: str, keys: list[bytes]) -> None:
        if entry not in self._indexed:
            self._where.update((key, (entry, row)) for row, key in enumerate(keys))
            self._indexed.add(entry)

    def _reindex(self) -> None:
        """Forget the index, so that it is read again (a batch entry it names is gone from the cache)."""
        self._where, self._indexed, self._scanned = {}, set(), False

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
                for piece in iter(lambda: handle.read(READ_SIZE), b""):
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

    def save_matrix(self, keys: list[bytes]) -> np.memmap | None:
        """Write the cached vectors of ``keys`` (all in ``index()``) as one matrix entry, atomically, then map it.

        The batch entries are read one at a time and each row written at its positions, so at
        most one batch is in memory; the checksum is then taken by reading the file back (page
        cache). None, with the index forgotten, when a batch entry has gone from the cache since
        it was indexed (deleted as corrupt): embed what is missing, then save again.
        """
        batches = _layout(self.index(), keys)
        path = self._matrix_path(keys)
        dim = 0

        def write(handle: BinaryIO) -> None:
            nonlocal dim
            for entry, positions, rows in batches:
                payload = self.cache.get(self.namespace, entry)
                if payload is None:
                    raise _BatchGone(entry)
                vectors = unpack(payload)[1]
                if dim and vectors.shape[1] != dim:
                    raise ValueError(f"batch {entry} of {self.namespace} holds {vectors.shape[1]}-d vectors, not {dim}")
                dim = vectors.shape[1]
                _write_rows(handle, vectors, positions, rows)
            handle.seek(0)
            handle.write(MAGIC + bytes(32) + MATRIX_HEADER.pack(MATRIX_TAG, len(keys), dim))
            handle.flush()
            check = _file_sha256(handle.fileno(), len(MAGIC) + 32, MATRIX_START + 4 * len(keys) * dim)
            handle.seek(len(MAGIC))
            handle.write(check)  # the checksum covers header and rows, as in every cache entry

        try:
            atomic_write(path, write)
        except _BatchGone:
            self._reindex()
            return None
        return np.memmap(path, dtype=np.float32, mode="r", offset=MATRIX_START, shape=(len(keys), dim))

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
    texts' vectors (written on first use, from the batches one at a time); no more than one
    batch of vectors is then held in memory, and the store drops any in-memory copy, so a large
    corpus is held once, by the page cache, rather than twice.
    """
    keys = [text_key(t) for t in texts]
    if memory_map and keys:
        return _embed_mapped(embedder, store, keys, texts, input_type, label)
    todo = _missing(store.known(), keys, texts)
    if todo:  # another store may have embedded some of them meanwhile
        todo = _missing(store.known(refresh=True), keys, texts)
    known = store.known()
    _embed(embedder, store, todo, input_type, label)
    stats = EmbedStats(embedded=len(todo), cache_hits=len(texts) - len(todo))
    out = np.stack([known[k] for k in keys]) if keys else np.zeros((0, embedder.dimension), np.float32)
    return out, stats


def _embed_mapped(
    embedder: Embedder, store: VectorStore, keys: list[bytes], texts: Sequence[str], input_type: str, label: str
) -> tuple[np.memmap, EmbedStats]:
    """``embed_cached`` with ``memory_map``: the matrix entry of ``keys``, built from the batches when absent."""
    mapped = store.matrix(keys)
    if mapped is not None:
        return mapped, EmbedStats(embedded=0, cache_hits=len(texts))
    embedded = 0
    while True:
        todo = _missing(store.index(), keys, texts)
        if todo:  # another store may have embedded some of them meanwhile
            todo = _missing(store.index(refresh=True), keys, texts)
        _embed(embedder, store, todo, input_type, label)
        embedded += len(todo)
        mapped = store.save_matrix(keys)  # None: a batch went missing meanwhile, so embed its texts again
        if mapped is not None:
            store.forget()
            return mapped, EmbedStats(embedded=embedded, cache_hits=len(texts) - embedded)


_SENT = [0]  # texts this process has sent to an embedder through the cache, every stage together


def texts_embedded() -> int:
    """Texts this process has embedded so far (a run's count is the difference across it)."""
    return _SENT[0]


def _embed(embedder: Embedder, store: VectorStore, todo: list[tuple[bytes, str]], input_type: str, label: str) -> None:
    """Embed the ``(key, text)`` pairs of ``todo``, committing every ``COMMIT_EVERY`` to the store."""
    with tqdm(total=len(todo), desc=label, unit="text", disable=not todo, leave=False) as bar:
        for first in range(0, len(todo), COMMIT_EVERY):
            batch = todo[first : first + COMMIT_EVERY]
            vectors = embedder.embed([t for _, t in batch], input_type)
            store.commit([k for k, _ in batch], vectors)
            _SENT[0] += len(batch)
            bar.update(len(batch))


def _missing(known: Container[bytes], keys: list[bytes], texts: Sequence[str]) -> list[tuple[bytes, str]]:
    """``(key, text)`` of each distinct text not in ``known``, in first-seen order."""
    missing: dict[bytes, str] = {}
    for key, text in zip(keys, texts, strict=True):
        if key not in known:
            missing.setdefault(key, text)
    return list(missing.items())


class _BatchGone(Exception):
    """A batch entry named by the index is no longer in the cache."""


def _layout(where: dict[bytes, tuple[str, int]], keys: list[bytes]) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(batch entry, positions, rows)`` per entry holding ``keys``: row ``rows[i]`` goes to ``positions[i]``.

    Positions ascend within an entry; a key at several positions has one pair per position.
    """
    places = [where[key] for key in keys]
    number: dict[str, int] = {}
    entry_of = np.array([number.setdefault(entry, len(number)) for entry, _ in places], dtype=np.int64)
    row_of = np.array([row for _, row in places], dtype=np.int64)
    order = np.argsort(entry_of, kind="stable")  # (n,) positions grouped by entry, ascending within each
    bounds = np.searchsorted(entry_of[order], np.arange(len(number) + 1))
    groups = [order[bounds[i] : bounds[i + 1]] for i in range(len(number))]
    return [(entry, positions, row_of[positions]) for entry, positions in zip(number, groups, strict=True)]


def _write_rows(handle: BinaryIO, vectors: np.ndarray, positions: np.ndarray, rows: np.ndarray) -> None:
    """Write ``vectors[rows[i]]`` as matrix row ``positions[i]``, one write per run of consecutive rows.

    E.g. positions [4, 5, 6, 9] and rows [0, 1, 2, 3] are two writes: rows 0-2 at 4, row 3 at 9.
    """
    row_bytes = 4 * vectors.shape[1]
    breaks = (np.flatnonzero((np.diff(positions) != 1) | (np.diff(rows) != 1)) + 1).tolist()
    for first, end in zip([0, *breaks], [*breaks, len(positions)], strict=True):
        handle.seek(MATRIX_START + int(positions[first]) * row_bytes)
        row = int(rows[first])
        handle.write(np.ascontiguousarray(vectors[row : row + end - first], dtype=np.float32).data)


def _file_sha256(fd: int, start: int, end: int) -> bytes:
    """sha256 of bytes ``start:end`` of an open file, read ``READ_SIZE`` at a time.

    ``atomic_write``'s file is written through a "wb" handle, but mkstemp opens the descriptor read-write.
    """
    check = hashlib.sha256()
    while start < end:
        piece = os.pread(fd, min(READ_SIZE, end - start), start)
        if not piece:
            raise OSError(f"matrix file ended at byte {start}, before byte {end}")
        check.update(piece)
        start += len(piece)
    return check.digest()
