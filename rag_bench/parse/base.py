"""What a reader makes of one file (``Parsed``), what a reader is (``Reader``), and the checks every reader shares.

A reader turns one file's bytes into text that keeps the structure the chunkers use: Markdown headings
(``# Title``, ``## Section``) for ``prefix=headings`` and recursive cuts, tables as pipe rows a reader
can follow (``| Region | Limit |``), and, for files with pages (PDF pages, slides), one text per page, so
that page numbers reach chunks and reports. Readers run on libraries of the ``parse`` extra; a reader
whose library is missing says which extra to install.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.errors import DataError

EXTRA = "parse"
INSTALL = f"pip install 'rag-bench[{EXTRA}]'"


@dataclass(frozen=True)
class Parsed:
    """One file's text: one entry per page (a file without pages has one), and its title when it names one."""

    pages: tuple[str, ...]
    paged: bool  # the file has pages (PDF pages, slides): page numbers mean something
    title: str | None = None


@dataclass(frozen=True)
class Reader:
    """Reads one file type with one library: ``read(data, path) -> Parsed``, a DataError for a bad file."""

    name: str  # "pypdf": what made a document's text (``Document.parser``)
    read: Callable[[bytes, Path], Parsed]
    packages: tuple[str, ...]  # PyPI packages it runs on: their versions key the parse cache
    modules: tuple[str, ...]  # their import names, checked before the first file

    def missing(self) -> list[str]:
        """The packages of this reader that are not installed."""
        return [p for p, m in zip(self.packages, self.modules, strict=True) if importlib.util.find_spec(m) is None]

    def versions(self) -> dict[str, str | None]:
        """The installed version of each package of this reader (None where it is not installed)."""
        from rag_bench.core.versions import versions

        return versions(self.packages)


def no_text(path: Path, what: str = "a scanned PDF, or pages that are images") -> DataError:
    """The error for a file whose parse holds no text at all."""
    return DataError(
        path,
        f"has no text layer ({what}): the parser found no text in it",
        fix="run OCR on it first (e.g. `ocrmypdf IN.pdf OUT.pdf`), or leave it out with parser.exclude=['<pattern>']",
    )


def unreadable(path: Path, kind: str, exc: Exception) -> DataError:
    """The error for a file its library cannot read (corrupt, truncated, not what its suffix says)."""
    reason = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
    return DataError(
        path,
        f"cannot be read as {kind} ({reason})",
        fix="check that the file opens in its usual program and is not truncated, or leave it out with "
        "parser.exclude=['<pattern>']",
    )


def table_rows(rows: list[list[object]]) -> str:
    """Rows of cells as Markdown pipe rows, the first as the header: ``| a | b |`` / ``|---|---|`` / ...

    Empty rows are left out; a cell's line breaks become spaces and its pipes are escaped.
    """
    cells = [[_cell(c) for c in row] for row in rows]
    cells = [row for row in cells if any(row)]
    if not cells:
        return ""
    width = max(len(row) for row in cells)
    lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in cells]
    return "\n".join([lines[0], "|" + "---|" * width, *lines[1:]])


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return " ".join(text.split()).replace("|", "\\|")
