"""A corpus matrix entry (format in ``matrix.py``) written while its texts are embedded, not after.

Each batch a process commits is also written at its rows' places in the matrix, so the vectors
reach the disk at the embedder's pace (a 300 MB burst at the end is throttled by the kernel's
dirty-page limit: seconds at 200k texts here) and are never read back from the batch entries; only
the rows this process did not embed (cached before, or embedded by another process) are read from
their batches at the end. The checksum is taken as the rows arrive when they arrive in order (a
fresh corpus), else by reading the file back from the first row out of order. A writer thread writes
and checksums the rows (both release the interpreter lock) while the next batch is embedded, at most
``BEHIND`` batches behind; the matrix is a by-product, so a batch it has not written yet is lost with
a killed run's unnamed file and nothing else (the batch entry itself is committed before ``add``).

The file is made unnamed (``O_TMPFILE``: a killed run leaves nothing behind) and given its name at
the end, through a temporary name and a rename, so readers see the whole entry or none; where the
filesystem has no unnamed files, it is a ``.tmp-`` file from the start. No fsync: a torn matrix
fails its checksum when next read and is rebuilt from the batches.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from rag_bench.core.cache import MAGIC
from rag_bench.core.files import TEMP_PREFIX
from rag_bench.embed.matrix import HEADER, READ_SIZE, START, TAG, layout, read_matrix

BEHIND = 4  # batches the writer thread may have yet to write (each held in memory until then)


class BatchGone(Exception):
    """A batch entry named by the index is no longer in the cache."""


class MatrixBuild:
    """The matrix of ``keys`` at ``path``, filled by ``add`` as batches are committed, then by ``finish``."""

    def __init__(self, path: Path, keys: list[bytes]) -> None:
        self.path, self.keys, self.n = path, keys, len(keys)
        self.position: dict[bytes, int] = {}  # a key's first place (made when a batch comes out of order)
        self.more: dict[bytes, list[int]] = {}  # a repeated key's later positions
        self.next = 0  # the place a batch of the next keys in order starts at
        self.filled = np.zeros(self.n, dtype=bool)  # the rows added
        self.dim = 0
        self.check = None  # sha256 of the header and rows 0 .. hashed-1, in order
        self.hashed = 0
        self._writer: ThreadPoolExecutor | None = None
        self._queued: deque[Future] = deque()
        path.parent.mkdir(parents=True, exist_ok=True)
        self.named: Path | None = None
        self.fd: int | None = None
        with contextlib.suppress(AttributeError, OSError):
            self.fd = os.open(path.parent, os.O_TMPFILE | os.O_RDWR, 0o666)
            if not os.path.exists(f"/proc/self/fd/{self.fd}"):  # it could not be given a name: not usable
                self.close()
        if self.fd is None:  # no unnamed files here: a named temporary file
            self.named = self._temp_name()
            self.fd = os.open(self.named, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)

    def __enter__(self) -> MatrixBuild:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Let go of the file (a build not finished leaves nothing behind, but a named temporary file's name)."""
        if self._writer is not None:
            self._writer.shutdown(wait=True, cancel_futures=True)
            self._writer = None
        self._queued.clear()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.named is not None:
            self.named.unlink(missing_ok=True)
            self.named = None

    def add(self, keys: list[bytes], vectors: np.ndarray) -> None:
        """Have the rows of a committed batch (float32, C order) written at every position of its keys (by the
        writer thread; an error it meets is raised by a later ``add`` or by ``finish``).

        A batch of the next keys in order (a fresh corpus) takes its places with no look-up; a repeated key's
        later places are then left to ``finish``, which reads them from the batch."""
        if self.keys[self.next : self.next + len(keys)] == keys:
            positions = np.arange(self.next, self.next + len(keys), dtype=np.int64)
            rows = np.arange(len(keys), dtype=np.int64)
            self.next += len(keys)
        elif self._places_known() and self.more:
            places = [(p, r) for r, k in enumerate(keys) if k in self.position for p in self._places(k)]
            positions = np.array([p for p, _ in places], dtype=np.int64)
            rows = np.array([r for _, r in places], dtype=np.int64)
        else:
            positions = np.array([self.position[k] for k in keys], dtype=np.int64)
            rows = np.arange(len(keys), dtype=np.int64)
        self.filled[positions] = True
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="rag-bench-matrix")
        while len(self._queued) >= BEHIND:
            self._queued.popleft().result()
        self._queued.append(self._writer.submit(self._write, vectors, positions, rows))

    def finish(self, where: Callable[[], dict[bytes, tuple[str, int]]], read: Callable[[str], memoryview | None]):
        """Write the rows not added from their batches (``where()``: the store's index, read only when some are
        missing; ``read``: a batch's payload, None when gone), the header and checksum, then give the file its
        name; the matrix, mapped read-only.

        Raises BatchGone when a batch entry has gone from the cache since it was indexed."""
        while self._queued:
            self._queued.popleft().result()
        places = np.flatnonzero(~self.filled)
        if len(places):
            keys = [self.keys[i] for i in places.tolist()]
            for entry, positions, rows in layout(where(), keys):
                payload = read(entry)
                if payload is None:
                    raise BatchGone(entry)
                n, dim = np.frombuffer(payload, dtype="<u4", count=2).tolist()
                vectors = np.frombuffer(payload, dtype=np.float32, offset=8 + 32 * n, count=n * dim).reshape(n, dim)
                self._write(vectors, places[positions], rows)
        header = HEADER.pack(TAG, self.n, self.dim)
        if self.check is None:
            self.check, self.hashed = hashlib.sha256(header), 0
        start, end = START + self.hashed * 4 * self.dim, START + self.n * 4 * self.dim
        while start < end:  # the rows that did not arrive in order
            piece = os.pread(self.fd, min(READ_SIZE, end - start), start)
            if not piece:
                raise OSError(f"matrix file ended at byte {start}, before byte {end}")
            self.check.update(piece)
            start += len(piece)
        os.pwrite(self.fd, MAGIC + self.check.digest() + header, 0)
        self._publish()
        return read_matrix(self.path, self.n, verify=False)

    def _places_known(self) -> bool:
        """Make ``position`` and ``more`` (once); True."""
        if not self.position and self.n:
            self.position = dict(zip(reversed(self.keys), range(self.n - 1, -1, -1), strict=True))  # first wins
            if len(self.position) != self.n:
                for i, key in enumerate(self.keys):
                    if self.position[key] != i:
                        self.more.setdefault(key, []).append(i)
        return True

    def _places(self, key: bytes) -> list[int]:
        return [self.position[key], *self.more.get(key, ())]

    def _write(self, vectors: np.ndarray, positions: np.ndarray, rows: np.ndarray) -> None:
        """Write ``vectors[rows[i]]`` at matrix row ``positions[i]``, one write per run of consecutive rows,
        hashing each run that continues the rows hashed so far."""
        if not len(positions):
            return
        if self.dim and vectors.shape[1] != self.dim:
            raise ValueError(f"a batch holds {vectors.shape[1]}-d vectors, not {self.dim}")
        if not self.dim:
            self.dim = vectors.shape[1]
            self.check = hashlib.sha256(HEADER.pack(TAG, self.n, self.dim))
            os.ftruncate(self.fd, START + self.n * 4 * self.dim)  # its size once: no write extends the file
        row_bytes = 4 * self.dim
        breaks = (np.flatnonzero((np.diff(positions) != 1) | (np.diff(rows) != 1)) + 1).tolist()
        for first, end in zip([0, *breaks], [*breaks, len(positions)], strict=True):
            at, row = int(positions[first]), int(rows[first])
            block = np.ascontiguousarray(vectors[row : row + end - first], dtype=np.float32).data
            os.pwrite(self.fd, block, START + at * row_bytes)
            if self.check is not None and at == self.hashed:
                self.check.update(block)
                self.hashed += end - first
            elif self.check is not None and at < self.hashed:
                self.check = None  # a row hashed already written again: hash the file at the end

    def _publish(self) -> None:
        """Give the file its name: link the unnamed file to a temporary name (or use the named one), rename it."""
        if self.named is None:
            named = self._temp_name()
            folder = os.open(named.parent, os.O_RDONLY)
            try:  # a folder descriptor makes os.link call linkat(AT_SYMLINK_FOLLOW), which names an unnamed file
                os.link(f"/proc/self/fd/{self.fd}", named.name, dst_dir_fd=folder, follow_symlinks=True)
            finally:
                os.close(folder)
        else:
            named = self.named
        try:
            os.replace(named, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                named.unlink()
            raise
        self.named = None
        self.close()

    def _temp_name(self) -> Path:
        return self.path.with_name(f"{TEMP_PREFIX}{self.path.name[:80]}-{secrets.token_hex(6)}")
