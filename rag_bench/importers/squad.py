"""SQuAD v1.1 / v2.0 JSON to native datasets.

Each distinct paragraph ``context`` becomes one document (repeated contexts are kept
once; id ``<title>-<paragraph>``), each question one question whose answers become
evidence spans ``[answer_start, answer_start + len(text))`` (identical spans kept once,
the first answer kept as the reference answer). A v2.0 question with
``"is_impossible": true`` is kept as unanswerable: no evidence.
Reference: Rajpurkar et al., "SQuAD", EMNLP 2016; "Know What You Don't Know", ACL 2018.
"""

from __future__ import annotations

import json
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.importers.common import Imported, check_id, document_row, question_row, read_text


def read_squad(path: Path) -> Imported:
    """The dataset in the SQuAD JSON file ``path``."""
    path = Path(path)
    try:
        root = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise DataError(
            path,
            f"malformed JSON ({exc.msg} at column {exc.colno})",
            line=exc.lineno,
            fix="give a SQuAD v1.1 or v2.0 JSON file",
        ) from None
    articles = _get(path, root, "data", list, "")
    doc_of_context: dict[str, str] = {}
    taken: set[str] = set()
    documents, questions, seen_questions = [], [], set()
    for a, article in enumerate(articles):
        where = f"data[{a}]"
        title = _get(path, article, "title", str, where, required=False) or "context"
        for p, paragraph in enumerate(_get(path, article, "paragraphs", list, where)):
            at = f"{where}.paragraphs[{p}]"
            context = _get(path, paragraph, "context", str, at)
            if context not in doc_of_context:
                doc_id = _free_id("_".join(title.split()) + f"-{p}", taken)
                doc_of_context[context] = doc_id
                taken.add(doc_id)
                documents.append(document_row(doc_id, context, title.replace("_", " ")))
            for i, qa in enumerate(_get(path, paragraph, "qas", list, at)):
                row = _question(path, qa, f"{at}.qas[{i}]", doc_of_context[context], context)
                if row["id"] in seen_questions:
                    raise DataError(
                        path,
                        f"duplicate question id {row['id']!r}",
                        field=f"{at}.qas[{i}].id",
                        fix="give every question a unique id",
                    )
                seen_questions.add(row["id"])
                questions.append(row)
    if not questions:
        raise DataError(path, "holds no questions", field="data", fix="add paragraphs with qas")
    return Imported(documents, questions)


def _question(path: Path, qa: object, where: str, doc_id: str, context: str) -> dict:
    qid = check_id(path, _get(path, qa, "id", (str, int), where), f"{where}.id")
    text = _get(path, qa, "question", str, where)
    if _get(path, qa, "is_impossible", bool, where, required=False):
        return question_row(qid, text)
    answers = _get(path, qa, "answers", list, where)
    if not answers:
        raise DataError(
            path,
            "is empty",
            field=f"{where}.answers",
            fix="add an answer, or set is_impossible: true for an unanswerable question",
        )
    spans: list[dict] = []
    for j, answer in enumerate(answers):
        span = _span(path, answer, f"{where}.answers[{j}]", doc_id, context)
        if span not in spans:
            spans.append(span)
    return question_row(qid, text, evidence=spans, answer=answers[0]["text"])


def _span(path: Path, answer: object, where: str, doc_id: str, context: str) -> dict:
    text = _get(path, answer, "text", str, where)
    start = _get(path, answer, "answer_start", int, where)
    if not text or not 0 <= start <= len(context) - len(text) or context[start : start + len(text)] != text:
        found = context[start : start + len(text)] if start >= 0 else ""
        raise DataError(
            path,
            f"answer {text!r} is not at answer_start {start} of the context (found {found!r})",
            field=where,
            fix="answer_start is the 0-based code point offset of the answer text",
        )
    return {"doc_id": doc_id, "start": start, "end": start + len(text)}


def _get(path: Path, obj: object, key: str, kind, where: str, required: bool = True):
    """``obj[key]`` checked for type; a DataError naming the JSON path otherwise."""
    name = f"{where}.{key}" if where else key
    if not isinstance(obj, dict):
        raise DataError(path, f"must be an object, got {type(obj).__name__}", field=where or "(top level)")
    value = obj.get(key)
    if value is None:
        if required:
            raise DataError(path, "missing", field=name, fix=f"add '{key}'")
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        want = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise DataError(path, f"must be {want}, got {type(value).__name__}", field=name)
    return value


def _free_id(base: str, taken: set[str]) -> str:
    """``base``, or ``base.2``, ``base.3``, ... when taken."""
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}.{n}"
    return candidate
