"""Writing files a user cares about: whole or not at all, and faults that name the file.

Every file rag-bench writes (datasets, run folders, reports, baselines, contexts, cache entries)
goes through this module. A file is written to a temporary file in the same folder
(``.tmp-<name>-<random><suffix>``), flushed and fsynced, then renamed over the destination
with ``os.replace``, so readers see the old file or the new one, never a torn one; a full disk,
a read-only folder or Ctrl-C leaves the previous file byte-identical. A replaced file keeps its
permission bits; a new one gets the umask's. A destination that is a symbolic link is written
through: its target is replaced (in the target's folder) and the link stays a link (a user's
questions.jsonl linked from elsewhere). The cache passes ``follow_links=False``: a link among its
entries is replaced, never followed, so a link planted in a shared cache cannot aim a write elsewhere.

A failure is re-raised as an ``OSError`` whose ``filename`` is the destination (not the temporary
file, and also for a failed ``write`` that names no file), and ``os_error_line`` turns it into the
CLI's one line: ``cannot write <path>: <reason> (fix: ...)``.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import BinaryIO

TEMP_PREFIX = ".tmp-"  # temporary files start with this (cache listings skip them)


def write_atomic(
    path: str | Path, write: Callable[[BinaryIO], object], follow_links: bool = True, durable: bool = True
) -> Path:
    """Create or replace ``path`` whole or not at all: ``write`` fills a temporary file, then it is renamed.

    ``durable=False`` skips the fsync: still whole or not at all for readers and after a killed process,
    but a power cut may lose the file or leave it torn (for checksummed cache entries, which are recomputed).
    """
    path = Path(path)
    return write_via(path, lambda tmp: _fill(tmp, write), follow_links, durable=durable)


def write_text(path: str | Path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically (no newline translation)."""
    data = text.encode("utf-8")
    return write_atomic(path, lambda handle: handle.write(data))


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    return write_atomic(path, lambda handle: handle.write(data))


def write_private(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically, readable and writable by its owner only (0600): a password file."""

    def fill(tmp: Path) -> None:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)

    return write_via(path, fill, mode=0o600)


def write_via(
    path: str | Path,
    fill: Callable[[Path], object],
    follow_links: bool = True,
    mode: int | None = None,
    durable: bool = True,
) -> Path:
    """Atomically create ``path`` from ``fill(tmp)``, which writes a temporary path (for writers that want a
    file name: ``savefig``, ``to_parquet``); the temporary name ends in ``path``'s suffix. ``mode``: the
    file's permission bits (default: the replaced file's, or the umask's for a new one)."""
    path = Path(path)
    try:
        target = through_links(path) if follow_links else path
        if not target.parent.is_dir():  # a stat: cheaper than mkdir's EEXIST on some filesystems
            target.parent.mkdir(parents=True, exist_ok=True)
        tmp = _temp_path(target)
        try:
            fill(tmp)
            _sync(tmp, _mode(target) if mode is None else mode, durable)
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise naming(exc, path) from exc
    return path


def write_together(files: Mapping[Path, bytes]) -> list[Path]:
    """Replace several files as one: every temporary file is written and synced before the first rename.

    A fault while writing (full disk, Ctrl-C) leaves every destination as it was; only the renames
    themselves, a few system calls, are not atomic as a group.
    """
    staged: list[tuple[Path, Path]] = []
    current = None
    try:
        for path, data in files.items():
            current = Path(path)
            target = through_links(current)
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = _temp_path(target)
            staged.append((tmp, current))
            _fill(tmp, lambda handle, data=data: handle.write(data))
            _sync(tmp, _mode(target))
        for tmp, current in staged:
            os.replace(tmp, through_links(current))
    except OSError as exc:
        raise naming(exc, current) from exc
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
    return [Path(p) for p in files]


def check_writable(path: str | Path) -> Path:
    """Make sure a file can be created at ``path`` before work that ends in writing it (creates its folder;
    a probe file is written and removed); an OSError naming ``path`` otherwise."""
    path = Path(path)
    try:
        target = through_links(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        probe = _temp_path(target)
        _fill(probe, lambda handle: None)
        probe.unlink()
    except OSError as exc:
        raise naming(exc, path) from exc
    return path


def through_links(path: Path) -> Path:
    """The file that writing ``path`` changes: the final target of a symbolic link (which may not exist
    yet), else ``path`` itself."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def naming(exc: OSError, path: Path | None) -> OSError:
    """``exc`` as an OSError of the same kind whose ``filename`` is ``path`` (the file the user asked for)."""
    if path is None or exc.errno is None:
        return exc
    return OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(path))


# errno -> what the user can do about it
FIXES: dict[int, str] = {
    errno.ENOSPC: "free space on that disk, or write somewhere else",
    errno.EDQUOT: "free space within your disk quota, or write somewhere else",
    errno.EROFS: "that filesystem is read-only: write somewhere else",
    errno.EACCES: "make the folder writable, or write somewhere else",
    errno.EPERM: "make the folder writable, or write somewhere else",
    errno.ENOTDIR: "a part of the path is a file, not a folder: choose another path",
    errno.EEXIST: "a file stands where a folder is needed: move it, or choose another path",
    errno.EISDIR: "it is a folder: give a file path",
    errno.ENAMETOOLONG: "choose a shorter path",
}


def is_write_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is a file-system fault the user can fix (full disk, read-only or unwritable folder, a
    file in the way) rather than a bug: an OSError that names its file and has an errno in ``FIXES``."""
    return isinstance(exc, OSError) and exc.filename is not None and exc.errno in FIXES


def os_error_line(exc: OSError, where: str = "") -> str:
    """``cannot write <path>: <reason> (fix: ...)`` for a failed write; ``where`` names the setting that
    chooses the location (e.g. ``hydra.run.dir``), added to the fix."""
    path = exc.filename if exc.filename is not None else "a file"
    reason = exc.strerror or str(exc)
    fix = FIXES.get(exc.errno or 0, "check the path and that it can be written")
    return f"cannot write {path}: {reason} (fix: {fix}{'; ' + where if where else ''})"


def inside(path: str | Path, folder: str | Path) -> bool:
    """Whether ``path`` is ``folder`` or lies below it."""
    path, folder = Path(os.path.abspath(path)), Path(os.path.abspath(folder))
    return path == folder or folder in path.parents


def keep_newest(folder: Path, count: int) -> None:
    """Delete all but the ``count`` most recently written files in ``folder``. Another process may delete or
    write there at the same time: a file already gone is no error, and one written meanwhile may stay."""
    found = []
    with os.scandir(folder) as items:
        for item in items:
            with contextlib.suppress(OSError):
                if item.is_file(follow_symlinks=False):
                    found.append((item.stat(follow_symlinks=False).st_mtime_ns, item.path))
    for _, path in sorted(found, reverse=True)[count:]:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _temp_path(path: Path) -> Path:
    return path.with_name(f"{TEMP_PREFIX}{path.name[:80]}-{secrets.token_hex(6)}{path.suffix}")


def _fill(tmp: Path, write: Callable[[BinaryIO], object]) -> None:
    """Create ``tmp`` (new, umask's mode) and let ``write`` fill it; the descriptor is also readable
    (``embed.matrix`` reads its file back for the checksum)."""
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
    with PieceWriter(io.FileIO(fd, "w")) as handle:
        write(handle)


PIECE = 1 << 20  # bytes per write(2) of a large buffer


class PieceWriter(io.BufferedWriter):
    """A buffered binary file that hands the kernel a large buffer ``PIECE`` bytes at a time.

    One ``write`` of tens of MB (a run.trec, a kept run, a chunk cache entry at 10,000 questions) took
    0.3-0.7 s on a shared virtual machine's ext4 where the same bytes in 1 MiB writes took 0.015 s
    (``benchmarks/perf/bench_write.py``): the kernel throttles a writer by the pages one call dirties.
    Pieces cost nothing elsewhere. Anything not a flat buffer of bytes goes to ``BufferedWriter`` whole.
    """

    def write(self, data) -> int:  # type: ignore[override]
        try:
            view = memoryview(data).cast("B")
        except (TypeError, ValueError):  # not a C-contiguous buffer
            return super().write(data)
        if view.nbytes <= PIECE:
            return super().write(view)
        for at in range(0, view.nbytes, PIECE):
            super().write(view[at : at + PIECE])
        return view.nbytes


def _mode(path: Path) -> int | None:
    """The permission bits of the file being replaced; None for a new file (keeps the umask's)."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return None


def _sync(tmp: Path, mode: int | None, durable: bool = True) -> None:
    """Give ``tmp`` the replaced file's mode and (``durable``) push its bytes to the disk."""
    if mode is None and not durable:
        return
    fd = os.open(tmp, os.O_RDONLY)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
