"""The parse stage over a ``docs/`` folder: which files, each read once per reader (cached), then cleaned.

Every file below ``docs/`` but those ``parser.exclude`` matches and hidden ones of other types than
``.md``/``.txt`` (``.DS_Store``) is a document. ``.md`` and ``.txt`` are read as stored by
``data/native.py``; every other type goes to the reader the parser gives it. A type no reader takes,
or whose library is missing, is an error naming the
files and the fix, before any file is read. Each file's parse is cached in the disk cache by its bytes,
its reader and the reader's library versions (and rag-bench's code), so a sweep parses each file once per
reader and a second run parses none. A file its reader cannot read stops the run (``failures=stop``) or
is counted, named and left out (``skip``); its evidence is then lost.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.errors import DataError
from rag_bench.core.types import Document
from rag_bench.parse.base import INSTALL, Parsed, Reader
from rag_bench.parse.clean import file_repeats, join, page_repeats, strip_pages
from rag_bench.parse.registry import KNOWN, PARSERS, VERBATIM
from rag_bench.parse.settings import ParserConfig

SHOWN = 5  # files named in a message before "and N more"


@dataclass
class ParseCounts:
    """What the parse stage did in one load: files read by readers, from the cache, pages, cleaning, failures."""

    files: int = 0  # files of parsed types (not .md/.txt)
    parsed: int = 0  # read by their reader now
    cached: int = 0  # served from the parse cache
    pages: int = 0  # pages of paged files (PDF pages, slides)
    empty_pages: int = 0  # of those, pages without text
    removed_lines: int = 0  # repeated lines removed by cleaning
    duplicates: int = 0  # documents that are near-duplicates of an earlier one (duplicates=flag|drop)
    seconds: float = 0.0  # reading and parsing (cache look-ups included)
    failed: list[str] = field(default_factory=list)  # "file: problem" of files left out (failures=skip)
    readers: dict[str, int] = field(default_factory=dict)  # reader -> files


@dataclass
class ParseRun:
    """One load's parser settings, the cache its parses go through (None: none), and what it did."""

    settings: ParserConfig
    cache: DiskCache | None = None
    counts: ParseCounts = field(default_factory=ParseCounts)

    @property
    def skips(self) -> bool:
        return self.settings.failures == "skip"


def select(docs: Path, settings: ParserConfig) -> tuple[list[Path], list[Path]]:
    """The files of ``docs``: those read as stored and those a reader parses, each sorted by path."""
    files = sorted(
        p
        for p in docs.rglob("*")
        if p.is_file() and not any(fnmatch(p.relative_to(docs).as_posix(), pattern) for pattern in settings.exclude)
    )
    readers = PARSERS.build(settings).readers
    verbatim = [p for p in files if p.suffix in VERBATIM]  # hidden ones too, as ever
    hidden = {p for p in files if any(part.startswith(".") for part in p.relative_to(docs).parts)}
    parsed = [p for p in files if p.suffix not in VERBATIM and p not in hidden]  # .DS_Store, .gitkeep: no documents
    unread = [p for p in parsed if p.suffix.lower() not in readers]
    if unread:
        suffixes = sorted({p.suffix or p.name for p in unread})
        raise DataError(
            docs,
            f"{_named(unread, docs)}: no parser reads {', '.join(suffixes)} files",
            fix=f"leave them out with parser.exclude=[{','.join(repr('*' + s) for s in suffixes)}], or convert them "
            f"to one of {' '.join([*VERBATIM, *sorted(KNOWN)])}",
        )
    for reader in dict.fromkeys(readers[p.suffix.lower()] for p in parsed):
        if reader.missing():
            needing = [p for p in parsed if readers[p.suffix.lower()] is reader]
            raise DataError(
                docs,
                f"{_named(needing, docs)}: reading them needs {', '.join(reader.missing())} (parser={settings.name}), "
                "which is not installed",
                fix=f"{INSTALL}, or leave them out with parser.exclude=['*{needing[0].suffix}']",
            )
    return verbatim, parsed


def _named(paths: list[Path], docs: Path) -> str:
    names = [p.relative_to(docs).as_posix() for p in paths]
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return f"{len(names)} file{'s' if len(names) != 1 else ''} ({', '.join(names[:SHOWN])}{more})"


def parse_files(docs: Path, paths: list[Path], run: ParseRun) -> tuple[list[Document], dict[str, Document]]:
    """The documents of ``paths`` (parsed, then cleaned) and, by id, the files left out: failed ones, as empty
    documents, so that their evidence is lost rather than unknown."""
    parser = PARSERS.build(run.settings)
    started = time.perf_counter()
    read: list[tuple[str, Parsed, Reader]] = []
    aside: dict[str, Document] = {}
    for path in paths:
        doc_id = path.relative_to(docs).as_posix()
        reader = parser.readers[path.suffix.lower()]
        try:
            read.append((doc_id, _parse(path, reader, run), reader))
        except DataError as exc:
            if not run.skips:
                raise
            run.counts.failed.append(str(exc))
            aside[doc_id] = Document(id=doc_id, text="", parser=reader.name)
    run.counts.seconds += time.perf_counter() - started
    return _documents(read, run), aside


def _parse(path: Path, reader: Reader, run: ParseRun) -> Parsed:
    """One file through its reader, or from the cache; counted."""
    if any(c.isspace() for c in path.name):
        raise DataError(path, "file name contains whitespace", fix="rename the file without spaces")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror})", fix="check the file's permissions") from None
    if not data:
        raise DataError(path, "is empty (0 bytes)", fix="remove it, or leave it out with parser.exclude=[...]")
    run.counts.files += 1
    run.counts.readers[reader.name] = run.counts.readers.get(reader.name, 0) + 1
    if run.cache is None:
        run.counts.parsed += 1
        return reader.read(data, path)
    key = digest("parsed", hashlib.sha256(data).hexdigest(), reader.name, reader.versions())
    parsed, cached = run.cache.get_or_compute("parsed", key, lambda: reader.read(data, path))
    run.counts.cached += cached
    run.counts.parsed += not cached
    return parsed


def _documents(read: list[tuple[str, Parsed, Reader]], run: ParseRun) -> list[Document]:
    """Clean each parse (``parse/clean.py``) and make it a document."""
    settings = run.settings
    across = set()
    if settings.repeated == "documents":
        across = file_repeats([parsed.pages for _, parsed, _ in read], settings.repeat_share)
    documents = []
    for doc_id, parsed, reader in read:
        edge = (
            page_repeats(parsed.pages, settings.repeat_share) if parsed.paged and settings.repeated != "off" else set()
        )
        pages, removed = strip_pages(parsed.pages, edge, across) if edge or across else (parsed.pages, 0)
        run.counts.removed_lines += removed
        if parsed.paged:
            run.counts.pages += len(pages)
            run.counts.empty_pages += sum(1 for p in pages if not p.strip())
        text, starts = join(pages)
        documents.append(
            Document(
                id=doc_id,
                text=text,
                title=parsed.title or _first_heading(text),
                pages=starts if parsed.paged else (),
                parser=reader.name,
            )
        )
    return documents


def _first_heading(text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip() or None
    return None
