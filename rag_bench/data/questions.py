"""One question object checked against the documents: the rules of ``questions.jsonl``.

``parse_question(obj, documents)`` is used for every line of the file and, outside any
file, for a single object (the labelling app's writes), so both refuse the same things:

    {"id": "q1", "question": "...", "evidence": [{"doc_id": "a.md", "start": 10, "end": 80}],
     "answer": "...", "category": "identifier", "split": "test"}

Evidence spans are ``{doc_id, start, end}`` (code point offsets, end exclusive), ``{doc_id,
text}`` (an excerpt found verbatim exactly once), or both (the text must equal
``document[start:end]``). In a parsed document (PDF, HTML, Office), or with no ``doc_id``, the excerpt is
located tolerantly in that parse's text, with an optional ``page`` hint, and what it cannot locate is
lost evidence, not an error (``data/excerpts.py``). ``judgements`` maps document ids to integer grades (>= 1 relevant;
0 or below judged not relevant, as trec_eval). ``source`` (e.g. ``synthetic``),
``generator`` (the settings that produced a generated question) and ``flags`` (review
notes) describe where a question came from. ``language`` is the ISO 639-1 code of the question's
text (``data/languages.py``); a question whose evidence is in another language is cross-language.
``filter`` (rag_bench/core/filters.py) limits the
documents the asker may see; its evidence must lie inside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from rag_bench.core.errors import DataError
from rag_bench.core.types import Document, Lost, Question, Span
from rag_bench.data.excerpts import ExcerptError, locate_quoted
from rag_bench.data.jsonl import field, reject_unknown
from rag_bench.data.languages import check_language
from rag_bench.data.locate import find_excerpt
from rag_bench.data.loose import describe
from rag_bench.data.metadata import question_filter

QUESTION_FIELDS = {
    "id",
    "question",
    "evidence",
    "judgements",
    "answer",
    "category",
    "split",
    "source",
    "generator",
    "flags",
    "filter",
    "language",
}
SPAN_FIELDS = {"doc_id", "start", "end", "text", "page"}
MAX_GRADE = 2**31 - 1  # trec_eval reads grades as C ints


def parse_question(
    obj: dict, documents: Mapping[str, Document], path: str | Path = "question", line: int | None = None
) -> Question:
    """The ``Question`` that ``obj`` describes; a DataError naming ``path``, ``line`` and the field otherwise."""
    if not isinstance(obj, dict):
        raise DataError(path, f"must be a JSON object, got {type(obj).__name__}", line=line, fix="send one object")
    reject_unknown(path, line, obj, QUESTION_FIELDS)
    qid = check_id(path, line, field(path, line, obj, "id", (str, int)))
    text = field(path, line, obj, "question", str)
    if not text.strip():
        raise DataError(path, "must not be empty", line=line, field="question", fix="write the question's text")
    evidence = field(path, line, obj, "evidence", list, required=False) or []
    spans: list[Span] = []
    lost: list[Lost] = []
    for i, ev in enumerate(evidence):
        span = parse_span(path, line, f"evidence[{i}]", ev, documents)
        if isinstance(span, Lost):
            lost.append(span)
            continue
        if span in spans:
            raise DataError(
                path,
                f"repeats evidence[{spans.index(span)}] ({span.doc_id} [{span.start}, {span.end}))",
                line=line,
                field=f"evidence[{i}]",
                fix="list each span once",
            )
        spans.append(span)
    _provenance(path, line, obj)
    judgements = _judgements(path, line, obj, documents)
    return Question(
        id=qid,
        text=text,
        spans=tuple(spans),
        judgements=judgements,
        answer=field(path, line, obj, "answer", str, required=False),
        category=field(path, line, obj, "category", str, required=False),
        split=field(path, line, obj, "split", str, required=False),
        source=field(path, line, obj, "source", str, required=False),
        filter=question_filter(path, line, obj.get("filter"), documents, spans, judgements),
        lost=tuple(lost),
        language=check_language(path, line, obj.get("language")),
    )


def parse_span(
    path: str | Path, line: int | None, name: str, ev: object, documents: Mapping[str, Document]
) -> Span | Lost:
    """One evidence entry: offsets, an excerpt, or both (which must agree); in a parsed document, or with no
    ``doc_id``, an excerpt located tolerantly, or ``Lost`` (``data/excerpts.py``)."""
    if not isinstance(ev, dict):
        raise DataError(
            path,
            f"must be an object, got {type(ev).__name__}",
            line=line,
            field=name,
            fix="write {doc_id, start, end} or {doc_id, text}",
        )
    reject_unknown(path, line, ev, SPAN_FIELDS, where=name)
    if ev.get("doc_id") is None and "text" in ev:
        return locate_quoted(path, line, name, ev, None, documents)
    doc = _document(path, line, name, ev, documents)
    if doc.parser is not None:
        return locate_quoted(path, line, name, ev, doc, documents)
    if "start" not in ev and "end" not in ev:
        return _locate(path, line, name, doc, ev.get("text"))
    start, end = (_offset(path, line, f"{name}.{key}", ev) for key in ("start", "end"))
    if not 0 <= start < end <= len(doc.text):
        raise DataError(
            path,
            f"span [{start}, {end}) lies outside document {doc.id!r} ({len(doc.text)} characters)",
            line=line,
            field=name,
            fix="offsets are 0-based code points with start < end <= document length",
        )
    if "text" in ev and ev["text"] != doc.text[start:end]:
        raise DataError(
            path,
            f"text {str(ev['text'])[:40]!r} does not match characters [{start}, {end}) of {doc.id!r}, "
            f"{doc.text[start:end][:40]!r}",
            line=line,
            field=f"{name}.text",
            fix="correct the offsets or the text (or give only one of them)",
        )
    return Span(doc.id, start, end)


def _document(path, line, name: str, ev: dict, documents: Mapping[str, Document]) -> Document:
    doc_id = ev.get("doc_id")
    if doc_id is None:
        raise DataError(path, "missing", line=line, field=f"{name}.doc_id", fix="name the evidence document")
    if isinstance(doc_id, bool) or not isinstance(doc_id, str | int):
        raise DataError(
            path,
            f"must be a string, got {type(doc_id).__name__}",
            line=line,
            field=f"{name}.doc_id",
            fix="write the document id as a string",
        )
    doc = documents.get(str(doc_id))
    if doc is None:
        example = f", e.g. {next(iter(documents))!r}" if documents else ""
        raise DataError(
            path,
            f"unknown document id {doc_id!r}",
            line=line,
            field=f"{name}.doc_id",
            fix=f"use one of the {len(documents)} document ids{example}",
        )
    return doc


def _offset(path, line, name: str, ev: dict) -> int:
    key = name.rsplit(".", 1)[1]
    if key not in ev:
        raise DataError(path, "missing", line=line, field=name, fix="give both start and end, or only an excerpt text")
    value = ev[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(
            path,
            f"must be an integer, got {type(value).__name__}",
            line=line,
            field=name,
            fix="offsets are whole numbers of characters (code points), e.g. 120",
        )
    return value


def _locate(path, line, name: str, doc: Document, excerpt: object) -> Span:
    if not isinstance(excerpt, str) or not excerpt.strip():
        raise DataError(
            path, "must be a non-empty string", line=line, field=f"{name}.text", fix="give the excerpt or start and end"
        )
    found = find_excerpt(doc.text, excerpt, tolerant=False)
    if found is None:
        near = find_excerpt(doc.text, excerpt)
        hint = (
            f"; not found verbatim, but a whitespace/quote-tolerant match is [{near.start}, {near.end})"
            if near
            else f"; {describe(doc.text, excerpt)}"
        )
        raise ExcerptError(
            path,
            f"excerpt {excerpt[:50]!r} not found in document {doc.id!r}{hint}",
            line=line,
            field=f"{name}.text",
            fix="copy the excerpt exactly from the document, or give start and end",
        )
    if found.occurrences > 1:
        raise ExcerptError(
            path,
            f"excerpt {excerpt[:50]!r} occurs more than once in document {doc.id!r}",
            line=line,
            field=f"{name}.text",
            fix="lengthen the excerpt until it is unique, or give start and end",
        )
    return Span(doc.id, found.start, found.end)


def _judgements(path, line, obj: dict, documents: Mapping[str, Document]) -> Mapping[str, int]:
    raw = field(path, line, obj, "judgements", dict, required=False) or {}
    for doc_id, grade in raw.items():
        where = f"judgements.{doc_id}"
        if doc_id not in documents:
            raise DataError(
                path, f"unknown document id {doc_id!r}", line=line, field=where, fix="judge documents of the dataset"
            )
        if isinstance(grade, bool) or not isinstance(grade, int):
            raise DataError(
                path,
                f"grade must be an integer, got {type(grade).__name__}",
                line=line,
                field=where,
                fix="grades are whole numbers: 1 or more relevant, 0 not relevant",
            )
        if abs(grade) > MAX_GRADE:
            raise DataError(
                path, f"grade {grade} is out of range", line=line, field=where, fix=f"keep grades within +-{MAX_GRADE}"
            )
    return MappingProxyType(dict(raw))


def _provenance(path, line, obj: dict) -> None:
    """``generator`` is an object; ``flags`` a list of strings."""
    field(path, line, obj, "generator", dict, required=False)
    for i, flag in enumerate(field(path, line, obj, "flags", list, required=False) or []):
        if not isinstance(flag, str):
            raise DataError(
                path,
                f"must be a string, got {type(flag).__name__}",
                line=line,
                field=f"flags[{i}]",
                fix="flags are short notes for the reviewer",
            )


def check_id(
    path: str | Path,
    line: int | None,
    value: str | int,
    field_name: str = "id",
    fix: str = "use ids such as q-017 (no spaces)",
) -> str:
    """An id as a string: non-empty, without whitespace."""
    ident = str(value)
    if not ident or any(c.isspace() for c in ident):
        raise DataError(path, f"{ident!r} is empty or contains whitespace", line=line, field=field_name, fix=fix)
    return ident
