"""A corpus's vectors as one memory-mappable cache entry: the file format, written and read.

Layout, like every cache entry ``MAGIC + sha256 + payload``, with the payload a 28-byte header
(tag ``RBM1``, n, dim, padding) followed by (n, dim) float32 rows, so the rows start at byte 64
and the file is memory-mapped instead of read. The checksum covers header and rows; it is
computed and verified by streaming the file (the page cache), never by holding the rows, once per
process and file (a file changed since has another identity and is verified again).
"""

from __future__ import annotations

import hashlib
import os
import struct
import time
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

import numpy as np

from rag_bench.core.cache import MAGIC, RACY_NS

HEADER = struct.Struct("<4sII16x")  # tag, n, dim; 28 bytes
TAG = b"RBM1"
START = len(MAGIC) + 32 + HEADER.size  # 64: byte offset of the rows
READ_SIZE = 1 << 20  # bytes read at a time while checksumming
DAMAGED = object()  # read_matrix's answer for a file that fails its checks
VERIFIED: set[tuple] = set()  # identities (``_identity``) of the matrix files checksummed in this process


def write_matrix(handle: BinaryIO, n: int, blocks: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> int:
    """Write an (n, dim) matrix from ``(vectors, positions, rows)`` blocks; return dim.

    Each block puts ``vectors[rows[i]]`` at matrix row ``positions[i]``, so the blocks may come
    in any order and only one is in memory at a time. ``handle``'s descriptor must be readable
    (``atomic_write``'s temporary file is), for the checksum is taken by reading the file back.
    """
    dim = 0
    for vectors, positions, rows in blocks:
        if dim and vectors.shape[1] != dim:
            raise ValueError(f"a batch holds {vectors.shape[1]}-d vectors, not {dim}")
        dim = vectors.shape[1]
        _write_rows(handle, vectors, positions, rows)
    handle.seek(0)
    handle.write(MAGIC + bytes(32) + HEADER.pack(TAG, n, dim))
    handle.flush()
    check = _file_sha256(handle.fileno(), len(MAGIC) + 32, START + 4 * n * dim)
    handle.seek(len(MAGIC))
    handle.write(check)
    return dim


def read_matrix(path: Path, n: int, verify: bool = True):
    """The (n, dim) matrix in ``path``, memory-mapped read-only; None when absent, DAMAGED when it fails a check.

    ``verify`` checksums the whole file once per process and file: a file verified earlier whose identity
    (``_identity``) is unchanged is not read again; its header and size are still checked on every read.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(START)
            identity = _identity(path, os.fstat(handle.fileno()))
            check = hashlib.sha256(head[len(MAGIC) + 32 :])
            streamed = verify and identity not in VERIFIED
            for piece in iter(lambda: handle.read(READ_SIZE), b"") if streamed else ():
                check.update(piece)
    except FileNotFoundError:
        return None
    ok = len(head) == START and head[:4] == MAGIC and (not streamed or check.digest() == head[4:36])
    tag, rows, dim = HEADER.unpack(head[36:]) if ok else (b"", 0, 0)
    damaged = not ok or tag != TAG or rows != n or path.stat().st_size != START + 4 * n * dim
    if damaged or streamed:  # the file's earlier identities are stale
        VERIFIED.difference_update([known for known in VERIFIED if known[0] == identity[0]])
    if damaged:
        return DAMAGED
    if streamed and time.time_ns() - identity[-1] > RACY_NS:  # a later change gets a later ctime
        VERIFIED.add(identity)
    return np.memmap(path, dtype=np.float32, mode="r", offset=START, shape=(n, dim))


def _identity(path: Path, stat: os.stat_result) -> tuple:
    """What changes when a file is replaced or written: path, device, inode, size, mtime and ctime (last).

    Any write sets the ctime to the current time, and nothing sets it back, so a file whose ctime is older
    than a timestamp tick (``RACY_NS``) when it was verified has another identity once changed.
    """
    return (str(path), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def layout(where: dict[bytes, tuple[str, int]], keys: list[bytes]) -> list[tuple[str, np.ndarray, np.ndarray]]:
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
        handle.seek(START + int(positions[first]) * row_bytes)
        row = int(rows[first])
        handle.write(np.ascontiguousarray(vectors[row : row + end - first], dtype=np.float32).data)


def _file_sha256(fd: int, start: int, end: int) -> bytes:
    """sha256 of bytes ``start:end`` of an open file, read ``READ_SIZE`` at a time."""
    check = hashlib.sha256()
    while start < end:
        piece = os.pread(fd, min(READ_SIZE, end - start), start)
        if not piece:
            raise OSError(f"matrix file ended at byte {start}, before byte {end}")
        check.update(piece)
        start += len(piece)
    return check.digest()
