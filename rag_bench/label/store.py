"""The questions file the labelling app edits: checked like the loader, written atomically, never clobbered.

The file's version is the sha256 of its bytes. Every write names the version it was based
on; the file is read again under a lock, and a write whose version is not the file's
current one (another editor saved it meanwhile) is refused with ``StaleVersion``. The lock
holds across processes (two label apps on one file): ``flock`` on the folder that holds the
file, taken around read, check and write, so every write that is acknowledged is in the file
(a lock file would add a file to the dataset, and change its fingerprint). A write replaces,
adds or removes exactly one line: every other line keeps its bytes, its line end (LF or CRLF,
each line its own) included; a new line gets the first line's end, and the file's BOM and
permissions are kept. A symbolic link is written through: its target changes, the link stays.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.core.files import os_error_line, write_atomic
from rag_bench.core.types import Document, Question
from rag_bench.data.jsonl import BOM, parse_line
from rag_bench.data.questions import QUESTION_FIELDS, parse_question

ORDER = ("id", "question", "evidence", "answer", "category", "split", "judgements", "source", "generator", "flags")
_NUMBERED = re.compile(r"^(.*?)(\d+)$")


class StaleVersion(Exception):
    """The file changed on disk since the version a write was based on."""

    def __init__(self, path: Path, current: str) -> None:
        self.current = current
        super().__init__(
            f"{path.name} changed on disk since you loaded it (now version {current[:12]}); "
            "your change was not saved (fix: reload the questions and make the change again)"
        )


class SaveFailed(Exception):
    """The file could not be written (a read-only file or folder, a file where a folder should be, a full disk)."""

    def __init__(self, line: str) -> None:
        super().__init__(f"{line} -- your change was not saved")


class UnknownQuestion(LookupError):
    """No question with that id."""


@dataclass(frozen=True)
class Entry:
    """One question line: its row as written, the parsed question, its 1-based line number."""

    row: dict
    question: Question
    line: int


@dataclass(frozen=True)
class Snapshot:
    """The file as read: version, raw lines and their ends, and the entries by id (file order)."""

    version: str
    lines: tuple[bytes, ...]  # without line ends; the first without its BOM
    ends: tuple[bytes, ...]  # each line's own end: b"\n", b"\r\n", or b"" (a last line without one)
    entries: Mapping[str, Entry]
    newline: bytes  # the end a new line gets: the first line's
    bom: bool

    def rows(self) -> list[tuple[bytes, bytes]]:
        """(line, end) pairs, to edit and hand to ``QuestionStore._write``."""
        return list(zip(self.lines, self.ends, strict=True))


class QuestionStore:
    """``questions.jsonl`` of a dataset, read fresh for every request."""

    def __init__(self, path: Path, documents: Mapping[str, Document]) -> None:
        self.path = Path(path)
        self.documents = documents
        self._lock = threading.Lock()
        self._retired: set[str] = set()  # ids deleted in this session: not handed out again

    def read(self) -> Snapshot:
        """The file now, every line checked by the loader's rules (a DataError names the bad line)."""
        data = self.path.read_bytes() if self.path.exists() else b""
        bom = data.startswith(BOM)
        lines, ends = split_lines(data[len(BOM) :] if bom else data)
        newline = ends[0] if ends and ends[0] else b"\n"
        entries: dict[str, Entry] = {}
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            row = parse_line(self.path, number, raw)
            question = parse_question(row, self.documents, self.path, number)
            if question.id in entries:
                raise DataError(
                    self.path,
                    f"duplicate id {question.id!r} (first on line {entries[question.id].line})",
                    line=number,
                    field="id",
                    fix="give every question a unique id",
                )
            entries[question.id] = Entry(row, question, number)
        return Snapshot(hashlib.sha256(data).hexdigest(), tuple(lines), tuple(ends), entries, newline, bom)

    def create(self, row: dict, version: str) -> tuple[Entry, str]:
        """Append a question (an id is assigned when the row has none); returns it and the new version."""
        with self._locked():
            snap = self._current(version)
            row = dict(row) if isinstance(row, dict) else row
            if isinstance(row, dict) and row.get("id") in (None, ""):
                row["id"] = next_id([*snap.entries, *sorted(self._retired)])
            entry = self._check(row, snap, line=len(snap.lines) + 1)
            if entry.question.id in snap.entries:
                raise DataError(
                    self.path.name,
                    f"{entry.question.id!r} is taken (line {snap.entries[entry.question.id].line})",
                    field="id",
                    fix="leave the id out to get a new one, or PUT /api/questions/<id> to change that question",
                )
            rows = snap.rows()
            if rows and not rows[-1][1]:  # a last line without an end gets one before the new line
                rows[-1] = (rows[-1][0], snap.newline)
            return entry, self._write(snap, [*rows, (encode(entry.row), snap.newline)])

    def update(self, qid: str, row: dict, version: str) -> tuple[Entry, str]:
        """Replace question ``qid``; the row's id, when given, must be ``qid``."""
        with self._locked():
            snap = self._current(version)
            old = self._entry(snap, qid)
            row = {"id": qid, **row} if isinstance(row, dict) and "id" not in row else row
            entry = self._check(row, snap, line=old.line)
            if entry.question.id != qid:
                raise DataError(
                    self.path.name,
                    f"{entry.question.id!r} differs from the question being changed ({qid!r})",
                    field="id",
                    fix="send the same id, or create a new question and delete this one",
                )
            rows = snap.rows()
            rows[old.line - 1] = (encode(entry.row), rows[old.line - 1][1])  # the line keeps its end
            return entry, self._write(snap, rows)

    def delete(self, qid: str, version: str) -> str:
        """Remove question ``qid``; returns the new version."""
        with self._locked():
            snap = self._current(version)
            old = self._entry(snap, qid)
            version = self._write(snap, [row for i, row in enumerate(snap.rows(), start=1) if i != old.line])
            self._retired.add(qid)  # a new question under an old id would be paired with the old one by the gate
            return version

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the file for one read-check-write: this process's threads, and every other process that
        edits it through a ``QuestionStore`` (``flock`` on its folder, released when the write is done)."""
        with self._lock:
            folder = Path(os.path.realpath(self.path)).parent  # a symlink's target's folder: one lock per file
            try:
                handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            except OSError:
                handle = None  # no folder (or not readable): the write itself fails and says so
            try:
                if handle is not None:
                    fcntl.flock(handle, fcntl.LOCK_EX)
                yield
            finally:
                if handle is not None:
                    os.close(handle)  # closing releases the lock

    def _current(self, version: str) -> Snapshot:
        snap = self.read()
        if version.strip('"') != snap.version:
            raise StaleVersion(self.path, snap.version)
        return snap

    def _entry(self, snap: Snapshot, qid: str) -> Entry:
        if qid not in snap.entries:
            raise UnknownQuestion(f"no question {qid!r} in {self.path.name} (fix: reload the questions)")
        return snap.entries[qid]

    def _check(self, row: object, snap: Snapshot, line: int) -> Entry:
        question = parse_question(row, self.documents, self.path.name)
        ordered = {k: row[k] for k in ORDER if k in row}
        ordered.update({k: v for k, v in row.items() if k not in ordered and k in QUESTION_FIELDS})
        return Entry(ordered, question, line)

    def _write(self, snap: Snapshot, rows: list[tuple[bytes, bytes]]) -> str:
        """Write ``rows`` ((line, end) pairs) in place of the file read as ``snap``, unless it changed meanwhile."""
        data = (BOM if snap.bom else b"") + b"".join(line + end for line, end in rows)
        mode = self.path.stat().st_mode & 0o7777 if self.path.exists() else 0o644

        def fill(handle) -> None:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)

        if self.read().version != snap.version:  # an editor that takes no lock: the window is the rename itself
            raise StaleVersion(self.path, self.read().version)
        if self.path.exists() and not (mode & 0o222 and os.access(self.path, os.W_OK)):  # root may write anything
            raise SaveFailed(f"cannot write {self.path}: it is read-only (fix: chmod u+w {self.path}, then save again)")
        try:
            write_atomic(self.path, fill)
        except OSError as exc:
            raise SaveFailed(os_error_line(exc)) from exc
        return hashlib.sha256(data).hexdigest()


def split_lines(body: bytes) -> tuple[list[bytes], list[bytes]]:
    """The lines of ``body`` without their ends, and each line's end (b"\n", b"\r\n", or b"" for a last line
    that has none): ``b'a\r\nb\nc'`` -> ``[b'a', b'b', b'c'], [b'\r\n', b'\n', b'']``."""
    pieces = body.split(b"\n")
    rest = pieces.pop()  # after the last LF: b"" when the file ends with a line end
    lines = [piece.removesuffix(b"\r") for piece in pieces]
    ends = [b"\r\n" if piece.endswith(b"\r") else b"\n" for piece in pieces]
    if rest:
        lines.append(rest)
        ends.append(b"")
    return lines, ends


def encode(row: dict) -> bytes:
    """One JSONL line (no line end), UTF-8 as written, non-ASCII kept readable."""
    return json.dumps(row, ensure_ascii=False).encode("utf-8")


def next_id(ids: list[str]) -> str:
    """The next id in the file's most common ``<prefix><number>`` pattern (``kb-009`` -> ``kb-010``), else ``q1``."""
    numbered = [m for m in map(_NUMBERED.match, ids) if m]
    if not numbered:
        candidate, n = "q{}", len(ids) + 1
    else:
        prefix = Counter(m.group(1) for m in numbered).most_common(1)[0][0]
        mine = [m for m in numbered if m.group(1) == prefix]
        width = max((len(m.group(2)) for m in mine if m.group(2).startswith("0")), default=1)
        n = max(int(m.group(2)) for m in mine) + 1
        candidate = prefix.replace("{", "{{").replace("}", "}}") + "{:0" + str(width) + "d}"
    taken = set(ids)
    while candidate.format(n) in taken:
        n += 1
    return candidate.format(n)
