"""PDF text with pypdf (BSD-3-Clause, pure Python): the text layer of each page in content-stream order.

Light and fast; no layout analysis, so headings come out as plain lines and table cells as words on a
line. Encrypted files that open with the empty password are read; others are an error naming the fix.
"""

from __future__ import annotations

import io
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.parse.base import Parsed, Reader, no_text, unreadable


def encrypted(path: Path) -> DataError:
    return DataError(
        path,
        "is an encrypted PDF that needs a password",
        fix="save an unencrypted copy (e.g. `qpdf --decrypt --password=PW IN.pdf OUT.pdf`), or leave it out with "
        "parser.exclude=['<pattern>']",
    )


def read(data: bytes, path: Path) -> Parsed:
    """Each page's text; its document title from the PDF's metadata."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise encrypted(path)
        pages = tuple((page.extract_text() or "") for page in reader.pages)
        title = reader.metadata.title if reader.metadata else None
    except DataError:
        raise
    except PyPdfError as exc:
        if "decrypt" in str(exc).lower() or "encrypt" in str(exc).lower():
            raise encrypted(path) from None
        raise unreadable(path, "a PDF", exc) from None
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as exc:
        raise unreadable(path, "a PDF", exc) from None
    if not any(p.strip() for p in pages):
        raise no_text(path)
    return Parsed(pages=pages, paged=True, title=title if title and title.lower() != "untitled" else None)


PYPDF = Reader("pypdf", read, ("pypdf",), ("pypdf",))
