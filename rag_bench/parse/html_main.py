"""HTML pages: decoding by what the page declares, and main-content extraction with trafilatura (Apache-2.0).

trafilatura (Barbaresi, ACL 2021) keeps a page's main text and drops navigation, footers, cookie
banners and other boilerplate; its Markdown output keeps headings (``#``) and tables (pipe rows).

Decoding: a byte-order mark, else the ``<meta charset>`` (or ``http-equiv`` content type) in the
first 4 KB, else UTF-8; a page that is not UTF-8 and declares no charset is an error naming the fix.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.parse.base import Parsed, Reader

_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def decode(data: bytes, path: Path) -> str:
    """The page's text (see the module docstring)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(encoding, errors="replace")
    declared = _CHARSET.search(data[:4096])
    if declared is not None:
        name = declared.group(1).decode("ascii")
        try:
            return data.decode(codecs.lookup(name).name, errors="replace")
        except LookupError:
            raise DataError(
                path, f"declares an unknown charset {name!r}", fix='correct its <meta charset="..."> (e.g. utf-8)'
            ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(
            path,
            f"is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}) and declares no charset",
            fix='add <meta charset="windows-1252"> (or its real encoding) to its <head>, or convert it: '
            "`iconv -f WINDOWS-1252 -t UTF-8 IN.html > OUT.html`",
        ) from None


def title_of(html: str) -> str | None:
    found = re.search(r"<title[^>]*>(.*?)</title>", html, re.IGNORECASE | re.DOTALL)
    return " ".join(found.group(1).split()) or None if found else None


def read(data: bytes, path: Path) -> Parsed:
    """The page's main content as Markdown (headings, lists, tables, emphasis; no links or images)."""
    import trafilatura

    html = decode(data, path)
    text = trafilatura.extract(
        html,
        output_format="markdown",
        include_tables=True,
        include_formatting=True,  # headings as # lines (and emphasis as ** markup, which excerpts look past)
        include_links=False,
        include_comments=False,
        include_images=False,
        favor_recall=True,
        deduplicate=False,
    )
    if not text or not text.strip():
        raise DataError(
            path,
            "holds no main text that trafilatura could find",
            fix="check the page has text outside navigation and scripts, use parser=markdown (every text of the "
            "page), or leave it out with parser.exclude=['<pattern>']",
        )
    return Parsed(pages=(text,), paged=False, title=title_of(html))


TRAFILATURA = Reader(
    "trafilatura", read, ("trafilatura", "lxml", "lxml_html_clean"), ("trafilatura", "lxml", "lxml_html_clean")
)
