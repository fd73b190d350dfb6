"""Layout-aware PDF text with pdfplumber (MIT, on pdfminer.six): columns, tables and headings.

Per page, from the words and their boxes:
  1. tables (pdfplumber's ruling-line finder) become pipe rows at their place; their words leave the flow;
  2. a two-column page is found by a gutter: an x between 35% and 65% of the page width with an empty
     stretch of at least ``MIN_GAP`` points around it in at least ``MIN_ROWS`` rows that hold words on both
     sides, crossed by at most a quarter of the rows; a run of rows that do not cross it is read left column
     first, then right; rows that cross it (titles, headers) stay in place;
  3. a row set in a font at least 1.5x the page's body size is a ``#`` heading, at least 1.15x a ``##`` one.
"""

from __future__ import annotations

import io
import statistics
from pathlib import Path

import numpy as np

from rag_bench.parse.base import Parsed, Reader, no_text, table_rows, unreadable
from rag_bench.parse.pdf_text import encrypted

MIN_ROWS = 4  # rows with words on both sides of a gutter before a page counts as two columns
MIN_GAP = 12.0  # points: a gutter is wider than the space between two words
ROW_TOLERANCE = 2.0  # points: words whose tops differ by less share a row


def read(data: bytes, path: Path) -> Parsed:
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfminer.psparser import PSException

    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            pages = tuple(page_text(page) for page in pdf.pages)
            title = (pdf.metadata or {}).get("Title")
    except (PDFEncryptionError, PDFPasswordIncorrect):
        raise encrypted(path) from None
    except Exception as exc:  # pdfplumber wraps pdfminer's errors in its own (PdfminerException)
        if "password" in str(exc).lower() or "encrypt" in type(exc).__name__.lower():
            raise encrypted(path) from None
        if isinstance(exc, PDFSyntaxError | PSException | ValueError | KeyError | TypeError | OSError) or (
            type(exc).__module__.startswith(("pdfplumber", "pdfminer"))
        ):
            raise unreadable(path, "a PDF", exc) from None
        raise
    if not any(p.strip() for p in pages):
        raise no_text(path)
    named = isinstance(title, str) and title and title.lower() != "untitled"
    return Parsed(pages=pages, paged=True, title=title if named else None)


def page_text(page) -> str:
    """One page as text: rows top to bottom, columns one after the other, tables as pipe rows."""
    tables = page.find_tables()
    boxes = [t.bbox for t in tables]
    words = [w for w in page.extract_words(extra_attrs=["size"]) if not any(_inside(w, b) for b in boxes)]
    rows = _rows(words)
    body = statistics.median(w["size"] for w in words) if words else 0.0
    gutter = _gutter(rows, float(page.width))
    blocks: list[tuple[float, str]] = [(t.bbox[1], table_rows(t.extract())) for t in tables]
    column: list[list[dict]] = []  # the run of rows that do not cross the gutter
    for row in rows:
        if gutter is not None and not _crosses(row, gutter):
            column.append(row)
            continue
        blocks.extend(_columns(column, gutter, body))
        column = []
        blocks.append((row[0]["top"], _line(row, body)))
    blocks.extend(_columns(column, gutter, body))
    blocks.sort(key=lambda b: b[0])
    return "\n".join(text for _, text in blocks if text)


def _columns(rows: list[list[dict]], gutter: float | None, body: float) -> list[tuple[float, str]]:
    """A run of two-column rows as one block: the left column's lines, then the right's."""
    if not rows:
        return []
    left = [_line([w for w in r if w["x1"] <= gutter], body) for r in rows]
    right = [_line([w for w in r if w["x0"] >= gutter], body) for r in rows]
    return [(rows[0][0]["top"], "\n".join(t for t in left + right if t))]


def _rows(words: list[dict]) -> list[list[dict]]:
    """Words grouped into rows by their top, each row left to right, rows top to bottom."""
    rows: list[list[dict]] = []
    for word in sorted(words, key=lambda w: (w["top"], w["x0"])):
        if rows and abs(word["top"] - rows[-1][0]["top"]) < ROW_TOLERANCE:
            rows[-1].append(word)
        else:
            rows.append([word])
    return [sorted(row, key=lambda w: w["x0"]) for row in rows]


def _gutter(rows: list[list[dict]], width: float) -> float | None:
    """The x of a column gutter (see the module docstring), or None for a one-column page: of the candidate
    x (35% to 65% of the width, in steps of 1%) that qualify, the first with the most two-sided rows."""
    xs = width * np.arange(35, 66) / 100  # (31,) candidate x
    both, crossing = np.zeros(len(xs)), np.zeros(len(xs))
    for row in rows:
        x0 = np.array([w["x0"] for w in row])[None, :]  # (1, words)
        x1 = np.array([w["x1"] for w in row])[None, :]
        at = xs[:, None]
        cross = ((x0 < at) & (at < x1)).any(axis=1)
        left = np.where(x1 <= at, x1, -np.inf).max(axis=1)  # the nearest word end left of x
        right = np.where(x0 >= at, x0, np.inf).min(axis=1)  # the nearest word start right of x
        both += ~cross & np.isfinite(left) & np.isfinite(right) & (right - left >= MIN_GAP)
        crossing += cross
    ok = (both >= MIN_ROWS) & (crossing <= 0.25 * (both + crossing))
    if not ok.any():
        return None
    return float(xs[int(np.argmax(np.where(ok, both, -1)))])


def _crosses(row: list[dict], x: float) -> bool:
    return any(w["x0"] < x < w["x1"] for w in row)


def _line(row: list[dict], body: float) -> str:
    if not row:
        return ""
    text = " ".join(w["text"] for w in row)
    size = max(w["size"] for w in row)
    if body and size >= 1.5 * body:
        return f"# {text}"
    if body and size >= 1.15 * body:
        return f"## {text}"
    return text


def _inside(word: dict, box: tuple[float, float, float, float]) -> bool:
    x0, top, x1, bottom = box
    return word["x0"] >= x0 - 1 and word["x1"] <= x1 + 1 and word["top"] >= top - 1 and word["bottom"] <= bottom + 1


PDFPLUMBER = Reader("pdfplumber", read, ("pdfplumber", "pdfminer.six"), ("pdfplumber", "pdfminer"))
