"""Progress on long loops: a tqdm bar on a terminal, a few plain lines in a log, nothing when quiet.

Every long loop reports through ``progress`` (a context manager) or ``track`` (an iterable wrapper):

- quiet, when a run sets ``quiet=true`` (``quiet_while``), or the environment sets ``RAG_BENCH_QUIET``
  or tqdm's own ``TQDM_DISABLE`` to anything but "", "0", "false", "no" or "off": nothing is printed;
- a terminal (the stream is a TTY that reports a width): tqdm's bar, redrawn in place and cleared when the loop ends;
- anything else (CI logs, a file, a pipe): one plain line at 0 %, 25 %, 50 %, 75 % and 100 %, e.g.
  ``embedding chunks: 161/643 texts (25%), 3.2 s``; a loop of unknown length prints its start and end.

A loop with nothing to do (``total=0``) prints nothing.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import IO, Protocol, TypeVar

QUIET_ENV = ("RAG_BENCH_QUIET", "TQDM_DISABLE")
FALSE_WORDS = {"", "0", "false", "no", "off"}
MILESTONES = (0, 25, 50, 75, 100)  # percent done at which a plain line is printed

_quiet: ContextVar[bool] = ContextVar("rag_bench_quiet", default=False)
T = TypeVar("T")


class Progress(Protocol):
    """What a loop tells its progress report: ``n`` more items are done."""

    def update(self, n: int = 1) -> object: ...

    def set_postfix_str(self, s: str = "") -> object: ...  # a note on what the loop is doing now


def is_quiet() -> bool:
    """True when progress is off: ``quiet_while(True)`` is in force, or an environment switch is set."""
    return _quiet.get() or any(os.environ.get(name, "").strip().lower() not in FALSE_WORDS for name in QUIET_ENV)


@contextmanager
def quiet_while(quiet: bool) -> Iterator[None]:
    """Within the block, progress is off when ``quiet`` (the run's ``quiet`` setting) or already off."""
    token = _quiet.set(_quiet.get() or quiet)
    try:
        yield
    finally:
        _quiet.reset(token)


@contextmanager
def progress(total: int | None, desc: str, unit: str, stream: IO[str] | None = None) -> Iterator[Progress]:
    """A progress report for ``total`` items (None: unknown), written to ``stream`` (default: stderr)."""
    stream = sys.stderr if stream is None else stream
    if is_quiet() or total == 0:
        yield _Silent()
    elif _is_terminal(stream):
        from tqdm import tqdm  # 30-45 ms to import (its version lookup): only for a bar on a terminal

        with tqdm(total=total, desc=desc, unit=unit, file=stream, leave=False, disable=False) as bar:
            yield bar
    else:
        lines = _Lines(total, desc, unit, stream)
        try:
            yield lines
        finally:
            lines.close()


def track(items: Iterable[T], desc: str, unit: str, stream: IO[str] | None = None) -> Iterator[T]:
    """``items``, one at a time, reporting each as done once the loop body has finished with it."""
    total = len(items) if hasattr(items, "__len__") else None
    with progress(total, desc, unit, stream) as bar:
        for item in items:
            yield item
            bar.update(1)


def _is_terminal(stream: IO[str]) -> bool:
    """A TTY with a width: tqdm draws nothing on one that reports 0 columns (some containers)."""
    try:
        return stream.isatty() and os.get_terminal_size(stream.fileno()).columns > 0
    except (AttributeError, ValueError, OSError):  # no isatty or fileno, a closed stream, no size
        return False


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "") -> None:
        pass


class _Lines:
    """Plain lines without carriage returns: at each milestone crossed, and at the end if not at one.

    Thread-safe: workers of a bounded pool report into one report (as into tqdm's bar).
    """

    def __init__(self, total: int | None, desc: str, unit: str, stream: IO[str]) -> None:
        self.total, self.desc, self.unit, self.stream = total, desc, unit, stream
        self.start, self.done, self.shown = time.perf_counter(), 0, -1
        self.passed, self.note, self.lock = 1, "", threading.Lock()  # milestones printed: 0 % now
        self._print()

    def update(self, n: int = 1) -> None:
        with self.lock:
            self.done += n
            if self.total is None:
                return
            percent = 100 * self.done // self.total if self.total > 0 else 100
            reached = [m for m in MILESTONES if m <= percent]
            if len(reached) > self.passed:
                self.passed = len(reached)
                self._print()

    def set_postfix_str(self, s: str = "") -> None:
        with self.lock:
            if s and s != self.note:  # once per change: a polling loop repeats its note
                self.stream.write(f"{self.desc}: {s}\n")
                self.stream.flush()
            self.note = s

    def close(self) -> None:
        with self.lock:
            if self.shown != self.done:
                self._print()

    def _print(self) -> None:
        elapsed = time.perf_counter() - self.start
        if self.total is None:
            count = f"{self.done} {self.unit}s"
        else:
            percent = 100 * self.done // self.total if self.total > 0 else 100
            count = f"{self.done}/{self.total} {self.unit}s ({percent}%)"
        self.stream.write(f"{self.desc}: {count}, {elapsed:.1f} s\n")
        self.stream.flush()
        self.shown = self.done
