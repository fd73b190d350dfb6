"""Evidence quoted as an excerpt, located in a parse's text: labels that survive a parser change.

An evidence entry in a parsed document (PDF, HTML, Office: ``Document.parser`` set) is located by its
``text``, in that parse's offsets, at the first level that finds it: verbatim, then whitespace, quote and
Unicode tolerant (``locate.py``), then loose (``loose.py``: line wraps, hyphenation, markup). Several
places: the one on the hinted ``page`` (from 1), else the first. An entry without ``doc_id`` is looked for
in every document, in corpus order. What no level finds is not an error: it is ``Lost`` evidence, "lost by
the parser", scored as evidence no chunk can hit (``score/spans.py``) and counted by evidence survival.

    {"doc_id": "guide.pdf", "text": "Rollback needs no approval", "page": 3}
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.core.types import Document, Lost, Span
from rag_bench.data.locate import find_excerpt
from rag_bench.data.loose import find_loose


class ExcerptError(DataError):
    """An excerpt that cannot be located where text is taken as stored: the loader gathers every one of a
    questions file into one error (``native.load_questions``)."""


QUOTE_FIX = "quote the excerpt as text (offsets change with the parser), e.g. {doc_id, text, page}"


def page_hint(path: str | Path, line: int | None, name: str, ev: dict) -> int | None:
    """The evidence entry's ``page`` (an integer from 1), or None."""
    page = ev.get("page")
    if page is None:
        return None
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise DataError(path, f"must be a page number from 1, got {page!r}", line=line, field=f"{name}.page",
                        fix="give the page the excerpt is on, e.g. 3, or leave page out")  # fmt: skip
    return page


def locate_quoted(
    path: str | Path, line: int | None, name: str, ev: dict, doc: Document | None, documents: Mapping[str, Document]
) -> Span | Lost:
    """Where the excerpt ``ev["text"]`` lies in ``doc`` (every document when None), or ``Lost``."""
    text = ev.get("text")
    if not isinstance(text, str) or not text.strip():
        where = f"document {doc.id!r} is parsed ({doc.parser})" if doc is not None else "no doc_id is given"
        raise DataError(path, f"has no excerpt text and {where}", line=line, field=name, fix=QUOTE_FIX)
    page = page_hint(path, line, name, ev)
    candidates = [doc] if doc is not None else list({id(d): d for d in documents.values()}.values())
    for candidate in candidates:
        found = locate_in(candidate, text, page)
        if found is not None:
            return Span(candidate.id, *found)
    if doc is None and not any(d.parser for d in candidates):  # no parse to blame: a label to fix
        raise ExcerptError(
            path,
            f"excerpt {text[:50]!r} (no doc_id) not found in any document",
            line=line,
            field=f"{name}.text",
            fix="copy the excerpt exactly from a document, or name its doc_id",
        )
    return Lost(doc.id if doc is not None else None, text, page)


def locate_in(doc: Document, excerpt: str, page: int | None = None) -> tuple[int, int] | None:
    """``(start, end)`` of ``excerpt`` in ``doc.text`` at the strictest level that finds it, or None."""
    for tolerant in (False, True):
        match = find_excerpt(doc.text, excerpt, tolerant=tolerant)
        if match is not None and (match.occurrences == 1 or page is None or not doc.pages):
            return match.start, match.end
        if match is not None:
            break  # several places: the loose level lists them all, and the page hint picks one
    places = find_loose(doc.text, excerpt).places
    if not places:
        return None
    on_page = [p for p in places if page is not None and doc.page_at(p[0]) == page]
    return (on_page or places)[0]
