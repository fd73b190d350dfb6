"""HTML to Markdown with markdownify (MIT) over BeautifulSoup (MIT): the whole page, boilerplate included.

Every visible text of ``<body>`` (scripts, styles and templates dropped) becomes Markdown: ATX
headings, pipe tables, lists, emphasis and code as markup. Nothing is judged boilerplate, so
navigation and footers stay unless cleaning removes them (``parser.repeated=documents``).
"""

from __future__ import annotations

import re
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.parse.base import Parsed, Reader
from rag_bench.parse.html_main import decode, title_of

_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def read(data: bytes, path: Path) -> Parsed:
    from bs4 import BeautifulSoup
    from markdownify import markdownify

    html = decode(data, path)
    soup = BeautifulSoup(html, "lxml")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    body = soup.body or soup
    text = markdownify(str(body), heading_style="ATX", bullets="-", strip=["img"])
    text = _BLANKS.sub("\n\n", "\n".join(line.rstrip() for line in text.splitlines())).strip()
    if not text:
        raise DataError(path, "holds no text", fix="check the file, or leave it out with parser.exclude=['<pattern>']")
    return Parsed(pages=(text,), paged=False, title=title_of(html))


MARKDOWNIFY = Reader("markdownify", read, ("markdownify", "beautifulsoup4", "lxml"), ("markdownify", "bs4", "lxml"))
