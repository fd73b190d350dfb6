"""TREC qrels (judgements for an existing dataset's questions) and TREC run files (rankings).

qrels lines: ``qid iteration docid grade`` (whitespace separated; iteration ignored).
run lines: ``qid Q0 docid rank score tag``; like trec_eval, a run's order is score
descending (compared as float32), then docid descending (string order); the rank column is
checked, not used (``core/ties.trec_order``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.core.ties import trec_order
from rag_bench.core.types import Dataset
from rag_bench.importers.common import Imported, add_judgement, document_row, question_row


def read_trec_qrels(path: Path, doc_ids: Collection[str] | None = None) -> dict[str, dict[str, int]]:
    """qid -> {docid: grade}; with ``doc_ids``, every judged docid must be one of them."""
    path = Path(path)
    qrels: dict[str, dict[str, int]] = {}
    first_seen: dict[tuple[str, str], int] = {}
    for line, fields in _rows(path, 4, "qid iteration docid grade"):
        qid, _, doc_id, grade = fields
        if not grade.lstrip("+-").isdigit():
            raise DataError(path, f"{grade!r} is not an integer", line=line, field="grade")
        if doc_ids is not None and doc_id not in doc_ids:
            raise DataError(
                path,
                f"unknown document id {doc_id!r}",
                line=line,
                field="docid",
                fix="judge documents of the dataset, or drop the line",
            )
        add_judgement(qrels, first_seen, path, line, qid, doc_id, int(grade))
    return qrels


def read_trec_run(path: Path) -> dict[str, list[tuple[str, float]]]:
    """qid -> [(docid, score), ...] best first, in trec_eval's order (float32 score desc, then docid desc)."""
    path = Path(path)
    runs: dict[str, dict[str, float]] = {}
    for line, fields in _rows(path, 6, "qid Q0 docid rank score tag"):
        qid, _, doc_id, rank, score, _ = fields
        if not rank.lstrip("+-").isdigit():
            raise DataError(path, f"{rank!r} is not an integer", line=line, field="rank")
        try:
            value = float(score)
        except ValueError:
            value = math.nan
        if math.isnan(value):
            raise DataError(path, f"{score!r} is not a number", line=line, field="score")
        ranking = runs.setdefault(qid, {})
        if doc_id in ranking:
            raise DataError(
                path,
                f"lists {doc_id!r} twice for {qid!r}",
                line=line,
                field="docid",
                fix="keep each document once per query",
            )
        ranking[doc_id] = value
    return {
        qid: [(doc_id, score) for doc_id, score, _ in trec_order((d, s, None) for d, s in ranking.items())]
        for qid, ranking in runs.items()
    }


def add_judgements(dataset: Dataset, qrels_path: Path) -> Imported:
    """``dataset`` as native rows, with the qrels' grades added to (or replacing) its questions' judgements."""
    qrels = read_trec_qrels(qrels_path, {d.id for d in dataset.documents})
    known = {q.id for q in dataset.questions}
    if qrels and not known & set(qrels):
        raise DataError(qrels_path, "judges none of the dataset's questions", fix="match qids to question ids")
    documents = [document_row(d.id, d.text, d.title, d.metadata) for d in dataset.documents]
    questions = [
        question_row(
            q.id,
            q.text,
            evidence=[{"doc_id": s.doc_id, "start": s.start, "end": s.end} for s in q.spans],
            judgements={**q.judgements, **qrels.get(q.id, {})},
            answer=q.answer,
            category=q.category,
            split=q.split,
        )
        for q in dataset.questions
    ]
    skipped = len(set(qrels) - known)
    notes = (f"skipped the judgements of {skipped} qids that are not questions of the dataset",) if skipped else ()
    return Imported(documents, questions, notes=notes)


def _rows(path: Path, width: int, layout: str) -> Iterator[tuple[int, list[str]]]:
    """``(line_number, fields)`` for each non-blank line, each line exactly ``width`` fields."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror})", fix="check the path") from None
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != width:
                    raise DataError(
                        path,
                        f"has {len(fields)} fields, expected {width}",
                        line=number,
                        fix=f"write '{layout}' on every line",
                    )
                yield number, fields
        except UnicodeDecodeError as exc:
            raise DataError(path, f"is not UTF-8 (byte {exc.start})", fix="save it as UTF-8") from None
