"""PDF text with pdfminer.six (MIT): layout analysis groups characters into text boxes and orders them.

Its default ``LAParams`` (Shinyama's layout analysis) keeps the columns of a two-column page apart
and reads them in order; headings and tables come out as plain lines, as with pypdf.
"""

from __future__ import annotations

import io
from pathlib import Path

from rag_bench.parse.base import Parsed, Reader, no_text, unreadable
from rag_bench.parse.pdf_text import encrypted


def read(data: bytes, path: Path) -> Parsed:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams, LTTextContainer
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfminer.psparser import PSException

    try:
        pages = tuple(
            "".join(box.get_text() for box in page if isinstance(box, LTTextContainer))
            for page in extract_pages(io.BytesIO(data), laparams=LAParams())
        )
    except (PDFEncryptionError, PDFPasswordIncorrect):
        raise encrypted(path) from None
    except (PDFSyntaxError, PSException, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise unreadable(path, "a PDF", exc) from None
    if not any(p.strip() for p in pages):
        raise no_text(path)
    return Parsed(pages=pages, paged=True)


PDFMINER = Reader("pdfminer", read, ("pdfminer.six",), ("pdfminer",))
