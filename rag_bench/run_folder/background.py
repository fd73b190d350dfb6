"""File writes done by one background thread, in order, while the caller computes the next file's contents.

A run folder's files are tens of MB at 10,000 questions; each is written atomically (``core/files``) and
synced, time the caller can spend making the next file. ``Writes`` keeps every guarantee of a direct write:
each file whole or not at all, in the order given; after a failure no later file is written, and ``paths``
raises that failure (the same ``OSError``, naming the file) in the caller's thread, where the CLI turns it
into its one line. Leaving the ``with`` block waits for the writes under way, and on an error (Ctrl-C
included) drops those not yet started.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO

from rag_bench.core.files import write_atomic


class Writes:
    """``with Writes() as writes: writes.text(path, text); ...; paths = writes.paths()``."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rag-bench-write")
        self._pending: list[Future] = []
        self._failed = False

    def __enter__(self) -> Writes:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        self._pool.shutdown(wait=True, cancel_futures=kind is not None)

    def file(self, path: Path, fill: Callable[[BinaryIO], object]) -> None:
        """Write ``path`` atomically with ``fill(handle)`` (``files.write_atomic``), after the files given before."""
        self._pending.append(self._pool.submit(self._write, path, fill))

    def text(self, path: Path, text: str) -> None:
        """Write UTF-8 ``text`` to ``path`` (``files.write_text``), after the files given before."""
        data = text.encode("utf-8")
        self.file(path, lambda handle: handle.write(data))

    def texts(self, path: Path, texts: list[str]) -> None:
        """Write the UTF-8 concatenation of ``texts`` to ``path``, a piece at a time (no copy of the whole)."""

        def fill(handle: BinaryIO) -> None:
            for text in texts:
                handle.write(text.encode("utf-8"))

        self.file(path, fill)

    def paths(self) -> list[Path]:
        """Wait for every write; the paths written, in order. Raises the first write's failure."""
        return [future.result() for future in self._pending]

    def _write(self, path: Path, fill: Callable[[BinaryIO], object]) -> Path | None:
        if self._failed:  # an earlier file failed: paths() raises its error before reading this one
            return None
        try:
            return write_atomic(path, fill)
        except BaseException:
            self._failed = True
            raise
