"""Document metadata from a ``metadata.jsonl`` sidecar, and the checks of a question's ``filter``.

A dataset whose documents are files (``docs/``) carries their metadata next to them, one
object per line: ``{"id": "technical/kg-200-manual.md", "metadata": {"product": "kg-200"}}``.
Documents it does not list have no metadata. A ``documents.jsonl`` dataset may use it too,
for documents without inline ``metadata``.

A filter must name fields some document has (a typo would silently match nothing), allow at
least one document, and allow every document its question's evidence lies in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from rag_bench.core.errors import DataError
from rag_bench.core.filters import Filter, parse_filter
from rag_bench.core.types import Document, Span
from rag_bench.data.jsonl import field, read_jsonl, reject_unknown


def with_sidecar(path: Path, documents: tuple[Document, ...]) -> tuple[Document, ...]:
    """``documents`` with the metadata ``path`` gives them (unchanged when there is no such file)."""
    if not path.is_file():
        return documents
    known = {d.id: d for d in documents}
    given: dict[str, tuple[int, dict]] = {}
    for line, obj in read_jsonl(path):
        reject_unknown(path, line, obj, {"id", "metadata"})
        doc_id = str(field(path, line, obj, "id", (str, int)))
        metadata = field(path, line, obj, "metadata", dict)
        if doc_id not in known:
            example = next(iter(known))
            raise DataError(
                path, f"unknown document id {doc_id!r}", line=line, field="id", fix=f"use an id such as {example!r}"
            )
        if doc_id in given:
            raise DataError(path, f"duplicate id {doc_id!r} (first on line {given[doc_id][0]})", line=line, field="id")
        if known[doc_id].metadata:
            raise DataError(
                path,
                f"document {doc_id!r} already has metadata in documents.jsonl",
                line=line,
                field="id",
                fix="keep one",
            )
        given[doc_id] = (line, metadata)
    return tuple(replace(d, metadata=MappingProxyType(dict(given[d.id][1]))) if d.id in given else d for d in documents)


def question_filter(
    path: Path,
    line: int,
    obj: object,
    documents: Mapping[str, Document],
    spans: Sequence[Span],
    judgements: Mapping[str, int],
) -> Filter | None:
    """The question's parsed ``filter`` (None when absent), checked against the documents and its labels."""
    if obj is None:
        return None
    flt = parse_filter(obj, path, line)
    known = sorted({key for d in documents.values() for key in d.metadata})
    unknown = sorted(flt.fields - set(known))
    if unknown:
        fix = f"metadata fields are: {', '.join(known)}" if known else "give documents metadata (metadata.jsonl)"
        raise DataError(
            path, f"names field {unknown[0]!r}, which no document's metadata has", line=line, field="filter", fix=fix
        )
    allowed = [d.id for d in documents.values() if flt.matches(d.metadata)]
    if not allowed:
        raise DataError(path, "allows no document", line=line, field="filter", fix="loosen it, or fix the metadata")
    labelled = [s.doc_id for s in spans] + [d for d, grade in judgements.items() if grade > 0]
    forbidden = sorted(set(labelled) - set(allowed))
    if forbidden:
        raise DataError(
            path,
            f"forbids document {forbidden[0]!r}, which holds this question's evidence",
            line=line,
            field="filter",
            fix="a question's evidence must lie in documents its filter allows",
        )
    return flt
