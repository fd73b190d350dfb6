"""The vector cache of one model: batches of (text key, vector), and a corpus's vectors as one matrix.

Embedding through it, each distinct text once per model, is ``cached.py``. Vectors live in the
cache as batches under the namespace ``vectors/<model>/<dimension>/<input type>``; a batch entry
holds the sha256 of each text and its vector.

A corpus's vectors can also be kept as one matrix entry (``memory_map=True``, format in
``matrix.py``) under ``vectors-matrix/<model>/<dimension>/<input type>``, keyed by the texts'
keys in order. A later run of the same corpus maps that file and never loads the batches; pages
are read on first touch and shared by every process on the machine. The first run writes the
matrix without holding the corpus's vectors: the store indexes where each key's vector is
(batch entry, row), and the matrix is filled one batch entry at a time.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import struct
from collections.abc import Container, Iterable, Iterator
from itertools import repeat
from pathlib import Path

import numpy as np

from rag_bench.core.cache import MAGIC, DiskCache, Listing, digest
from rag_bench.core.files import TEMP_PREFIX, naming
from rag_bench.core.workspace import Tally, Workspace
from rag_bench.embed.base import vector_cache_name
from rag_bench.embed.claims import Claims
from rag_bench.embed.matrix import DAMAGED, read_matrix
from rag_bench.embed.matrix_build import BatchGone, MatrixBuild

log = logging.getLogger(__name__)


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def text_keys(texts: Iterable[str]) -> list[bytes]:
    """``text_key`` of each text (one loop, no call per text: a corpus of 200k texts is keyed in about 0.1 s)."""
    sha256 = hashlib.sha256
    return [sha256(text.encode("utf-8")).digest() for text in texts]


def pack(keys: list[bytes], vectors: np.ndarray) -> bytes:
    """Batch payload: n, dim (uint32 each), n 32-byte keys, then (n, dim) float32."""
    n, dim = vectors.shape
    return struct.pack("<II", n, dim) + b"".join(keys) + np.ascontiguousarray(vectors, np.float32).tobytes()


def unpack(payload: bytes) -> tuple[list[bytes], np.ndarray]:
    return unpack_keys(payload), unpack_vectors(payload)


def unpack_keys(payload: bytes | memoryview) -> list[bytes]:
    """The text keys of a batch payload."""
    n = struct.unpack_from("<I", payload)[0]
    raw = bytes(payload[8 : 8 + 32 * n])
    return [raw[i : i + 32] for i in range(0, 32 * n, 32)]


def unpack_vectors(payload: bytes | memoryview) -> np.ndarray:
    """The (n, dim) vectors of a batch payload, a view of it (no copy)."""
    n, dim = struct.unpack_from("<II", payload)
    return np.frombuffer(payload, dtype=np.float32, offset=8 + 32 * n, count=n * dim).reshape(n, dim)


def stored_keys(cache: DiskCache, namespace: str | None = None) -> list[bytes]:
    """The text key of every vector in the batch entries, duplicates kept (a text embedded twice shows twice).

    In ``namespace``, or in every ``vectors/<model>/<dimension>/<input type>`` of the cache.
    """
    if namespace is None:
        folders = sorted((cache.root / "vectors").glob("*/*/*"))
        return [key for folder in folders for key in stored_keys(cache, folder.relative_to(cache.root).as_posix())]
    return [key for _, payload in cache.entries(namespace) for key in unpack(payload)[0]]


class VectorStore:
    """The cached vectors of one (model, dimension, input type)."""

    def __init__(
        self, cache: DiskCache, model: str, dimension: int, input_type: str, tally: Tally | None = None
    ) -> None:
        self.cache = cache
        self.tally = tally if tally is not None else Tally()  # texts this store embedded (shared by a workspace)
        self.namespace = f"vectors/{model.replace('/', '--')}/{dimension}/{input_type}"
        self._known: dict[bytes, np.ndarray] | None = None
        self._held: set[str] = set()  # batch entries whose vectors are in _known
        self._where: dict[bytes, tuple[str, int]] = {}  # text key -> (batch entry, row)
        self._indexed: set[str] = set()  # batch entries in _where
        self._unnoted: list[tuple[str, list[bytes]]] = []  # entries committed here, not yet in _where (``_noted``)
        self.arrived = 0  # batch entries read from the cache (not committed by this store) so far
        self._scanned = False  # whether every batch entry has been indexed once
        self._listed = {"known": Listing(), "index": Listing()}  # what each view's last look at the folder saw
        self.claims = Claims(cache.root, self.namespace)
        self._build: MatrixBuild | None = None  # the matrix being written as batches are committed

    def known(self, refresh: bool = False) -> dict[bytes, np.ndarray]:
        """Every cached vector of this namespace by text key.

        Batches are read once and kept in memory. ``refresh`` also reads the batches that
        appeared since (written by another store on the same cache, in this process or
        another): callers refresh before embedding, so no text is embedded twice because
        one store had not seen another's work.
        """
        if self._known is None:
            self._known, self._held, self._listed["known"] = {}, set(), Listing()
            refresh = True
        if refresh:
            self._noted()
            for entry, payload in self.cache.entries(self.namespace, skip=self._held, since=self._listed["known"]):
                keys, vectors = unpack(payload)
                self.arrived += 1
                self._note(entry, keys)
                self._known.update(zip(keys, vectors, strict=True))
                self._held.add(entry)
            self._scanned = True
        return self._known

    def index(self, refresh: bool = False) -> dict[bytes, tuple[str, int]]:
        """Where each cached vector is, ``(batch entry, row)`` by text key, holding no vectors.

        Batches are read one at a time and only their keys kept; ``refresh`` as in ``known``.
        """
        self._noted()
        if refresh or not self._scanned:
            buffer = _Buffer()  # every batch read into one buffer, checked, and only its keys kept
            for entry in self.cache.keys(self.namespace, since=self._listed["index"]):
                payload = None if entry in self._indexed else buffer.read(self.cache, self.namespace, entry)
                if payload is not None:  # None: indexed already, removed meanwhile, or corrupt (then deleted)
                    self.arrived += 1
                    self._note(entry, unpack_keys(payload))
            self._scanned = True
        return self._where

    def refresh(self, quiet: bool = False) -> Container[bytes]:
        """The keys cached now, batches written since by other stores included (the vectors too, once loaded).

        Only the cache's sub-folders whose mtime moved are read again (``DiskCache.keys``), so a refresh
        before every batch costs a ``stat`` per sub-folder, not a listing of every batch so far. ``quiet``
        (the claims' word that no other store can have committed since the last look): no look at all.
        """
        if quiet and (self._known is not None or self._scanned):
            return self._known if self._known is not None else self._noted()
        return self.known(refresh=True) if self._known is not None else self.index(refresh=True)

    def commit(self, keys: list[bytes], vectors: np.ndarray) -> None:
        """Write one batch entry, as ``cache.put(namespace, entry, pack(keys, vectors))`` would, from its parts
        (no copy of the vectors into one payload, then into one blob: a batch of 256 is 400 KB at 384-d)."""
        joined = b"".join(keys)
        entry = hashlib.sha256(joined).hexdigest()
        rows = np.ascontiguousarray(vectors, np.float32)
        parts = (struct.pack("<II", *rows.shape), joined, rows.data)
        check = hashlib.sha256()
        for part in parts:
            check.update(part)
        self._write_entry(self.cache.path(self.namespace, entry), [MAGIC + check.digest() + parts[0], *parts[1:]])
        self._unnoted.append((entry, keys))  # indexed when the index is next read, not per batch
        if self._build is not None:
            self._build.add(keys, rows)
        if self._known is not None:
            self._known.update(zip(keys, vectors, strict=True))
            self._held.add(entry)

    def _write_entry(self, path: Path, parts: list) -> None:
        """Create ``path`` whole or not at all, as ``write_atomic(durable=False)`` does, in fewer system calls
        (a new temporary file, one ``writev``, a rename; the sub-folder made when missing): no fsync per
        batch, for a batch a power cut tears fails its checksum and is embedded again."""
        tmp = path.with_name(f"{TEMP_PREFIX}{path.name}-{secrets.token_hex(6)}")
        flags, views = os.O_WRONLY | os.O_CREAT | os.O_EXCL, [memoryview(part).cast("B") for part in parts]
        try:
            try:
                fd = os.open(tmp, flags, 0o666)
            except FileNotFoundError:  # the sub-folder's first entry
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(tmp, flags, 0o666)
            try:
                while views:  # a regular file takes the whole write but on a fault (full disk: raised)
                    done = os.writev(fd, views)
                    while views and done >= len(views[0]):
                        done -= len(views.pop(0))
                    views[:1] = [views[0][done:]] if views else []
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException as exc:  # a fault, or Ctrl-C: no temporary file left
            with contextlib.suppress(OSError):
                tmp.unlink()
            if isinstance(exc, OSError):
                raise naming(exc, path) from exc
            raise

    def _noted(self) -> dict[bytes, tuple[str, int]]:
        """The index, with the entries committed since it was last read (about 1 us a text, paid when read)."""
        for entry, keys in self._unnoted:
            self._indexed.discard(entry)  # the same keys written again: their rows are this entry's now
            self._note(entry, keys)
        self._unnoted.clear()
        return self._where

    def _note(self, entry: str, keys: list[bytes]) -> None:
        if entry not in self._indexed:
            places = zip(repeat(entry), range(len(keys)), strict=False)  # (entry, row) of each key
            self._where.update(zip(keys, places, strict=True))
            self._indexed.add(entry)

    def _reindex(self) -> None:
        """Forget the index, so that it is read again (a batch entry it names is gone from the cache)."""
        self._where, self._indexed, self._scanned, self._listed["index"] = {}, set(), False, Listing()
        self._unnoted = []  # on disk: read again with the rest

    def _matrix_path(self, keys: list[bytes]) -> Path:
        return self.cache.path(self.namespace.replace("vectors/", "vectors-matrix/", 1), digest(b"".join(keys)))

    def matrix(self, keys: list[bytes]) -> np.ndarray | None:
        """The saved (len(keys), dim) matrix of exactly these keys, memory-mapped read-only; None if absent.

        A damaged entry is deleted, counted in ``cache.corrupt`` and reported as absent.
        """
        path = self._matrix_path(keys)
        mapped = read_matrix(path, len(keys))
        if mapped is DAMAGED:
            self.cache.corrupt += 1
            path.unlink(missing_ok=True)
            return None
        return mapped

    @contextlib.contextmanager
    def building(self, keys: list[bytes]) -> Iterator[MatrixBuild]:
        """Within this block every batch committed is also written into the matrix entry of ``keys``
        (``matrix_build.py``), which ``save_matrix(keys, build)`` then completes."""
        with MatrixBuild(self._matrix_path(keys), keys) as build:
            self._build = build
            try:
                yield build
            finally:
                self._build = None

    def save_matrix(self, keys: list[bytes], build: MatrixBuild | None = None) -> np.memmap | None:
        """Write the cached vectors of ``keys`` (all in ``index()``) as one matrix entry, atomically, then map it.

        The rows ``build`` holds already are kept; the others are read from their batch entries one
        at a time, so at most one batch is in memory. None, with the index forgotten, when a batch
        entry has gone from the cache since it was indexed (deleted as corrupt): embed what is
        missing, then save again.
        """
        buffer = _Buffer()
        with contextlib.ExitStack() as stack:
            if build is None:
                build = stack.enter_context(MatrixBuild(self._matrix_path(keys), keys))
            try:
                return build.finish(self.index, lambda entry: buffer.read(self.cache, self.namespace, entry))
            except BatchGone:
                self._reindex()
                return None

    def forget(self) -> None:
        """Drop the in-memory vectors (they are read again from the cache when next needed)."""
        self._known = None


class _Buffer:
    """One growing buffer that batch entries are read into in turn (a new 400 KB bytes object per batch would be
    mapped and page-faulted afresh each time: a third of the matrix build's time at 200k texts)."""

    def __init__(self) -> None:
        self.data = bytearray()

    def read(self, cache: DiskCache, namespace: str, entry: str) -> memoryview | None:
        """The payload of an entry, valid until the next read; None when absent or corrupt (then deleted and
        counted in ``cache.corrupt``, as ``DiskCache.get`` does)."""
        path = cache.path(namespace, entry)
        try:
            with open(path, "rb", buffering=0) as handle:
                size = os.fstat(handle.fileno()).st_size
                if len(self.data) < size:
                    self.data = bytearray(size)
                view = memoryview(self.data)[:size]
                got = handle.readinto(view)
        except FileNotFoundError:
            return None
        if got == size and view[:4] == MAGIC and hashlib.sha256(view[36:]).digest() == view[4:36]:
            return view[36:]
        log.warning("cache entry %s is corrupt; dropping it and recomputing", path)
        cache.corrupt += 1
        path.unlink(missing_ok=True)
        return None


def vector_store(ws: Workspace, embedder, input_type: str) -> VectorStore:
    """The workspace's vector store of an embedder's native vectors (one per process and namespace)."""
    name = vector_cache_name(embedder)
    key = digest(name, embedder.dimension, input_type)
    return ws.remember("store", key, lambda: VectorStore(ws.cache, name, embedder.dimension, input_type, ws.tally))
