"""Chroma chunking-evaluation data (questions CSV plus a corpus folder) to native datasets.

The CSV has columns ``question``, ``references`` and ``corpus_id``. ``references`` is a
JSON list of ``{"content", "start_index", "end_index"}``: code point offsets into the
UTF-8 text of ``<corpora>/<corpus_id>.md``, where ``text[start_index:end_index]`` must
equal ``content``. Every ``.md`` file in the corpus folder becomes a document (id = file
stem), questions get ids ``q1, q2, ...`` in file order and their corpus as category.
Reference: Smith & Troynikov, "Evaluating Chunking Strategies for Retrieval", Chroma, 2024.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.importers.common import Imported, check_id, document_row, question_row, read_text

COLUMNS = ("question", "references", "corpus_id")


def read_chroma(source: Path, corpora: Path | None = None) -> Imported:
    """Questions from the CSV ``source`` (or ``source/questions.csv``), documents from ``corpora``.

    ``corpora`` defaults to the ``corpora/`` folder beside the CSV.
    """
    source = Path(source)
    csv_path = source / "questions.csv" if source.is_dir() else source
    corpora = Path(corpora) if corpora is not None else csv_path.parent / "corpora"
    texts = read_corpora(corpora)
    documents = [document_row(doc_id, text) for doc_id, text in texts.items()]
    questions = []
    for number, row in _csv_rows(csv_path):
        qid = f"q{len(questions) + 1}"
        questions.append(_question(csv_path, number, row, qid, texts))
    if not questions:
        raise DataError(csv_path, "holds no questions", fix="add rows under the header")
    return Imported(documents, questions)


def read_corpora(folder: Path) -> dict[str, str]:
    """Document id (file stem) -> exact text, for every ``.md`` file in ``folder``, sorted by name."""
    if not folder.is_dir():
        raise DataError(folder, "is not a folder", fix="give the corpus folder with --corpora")
    texts = {check_id(path, path.stem, "file name"): read_text(path) for path in sorted(folder.glob("*.md"))}
    if not texts:
        raise DataError(folder, "holds no .md files", fix="put one <corpus_id>.md file per corpus there")
    return texts


def _csv_rows(path: Path):
    """``(line_number, {column: value})`` for each non-blank data row of the CSV."""
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror})", fix="check the path") from None
    with handle:
        reader = csv.reader(handle)
        try:
            header = next(reader, [])
            missing = [c for c in COLUMNS if c not in header]
            if missing:
                raise DataError(
                    path,
                    f"header lacks column {missing[0]!r}",
                    line=1,
                    field=missing[0],
                    fix=f"the header must name {', '.join(COLUMNS)}",
                )
            while True:
                number = reader.line_num + 1
                values = next(reader, None)
                if values is None:
                    return
                if not any(v.strip() for v in values):
                    continue
                if len(values) != len(header):
                    raise DataError(
                        path,
                        f"has {len(values)} fields, the header {len(header)}",
                        line=number,
                        fix="quote fields that hold commas, quotes or newlines",
                    )
                yield number, dict(zip(header, values, strict=True))
        except csv.Error as exc:
            raise DataError(path, f"malformed CSV ({exc})", line=reader.line_num) from None
        except UnicodeDecodeError as exc:
            raise DataError(path, f"is not UTF-8 (byte {exc.start})", fix="save it as UTF-8") from None


def _question(path: Path, line: int, row: dict[str, str], qid: str, texts: dict[str, str]) -> dict:
    text, corpus_id = row["question"].strip(), row["corpus_id"].strip()
    if not text:
        raise DataError(path, "is empty", line=line, field="question", fix="write the question")
    if corpus_id not in texts:
        raise DataError(
            path, f"unknown corpus {corpus_id!r}", line=line, field="corpus_id", fix=f"use one of: {', '.join(texts)}"
        )
    try:
        references = json.loads(row["references"])
    except json.JSONDecodeError as exc:
        raise DataError(
            path,
            f"malformed JSON ({exc.msg})",
            line=line,
            field="references",
            fix='write a JSON list of {"content", "start_index", "end_index"}',
        ) from None
    if not isinstance(references, list):
        raise DataError(path, "must be a JSON list", line=line, field="references")
    evidence = [_span(path, line, i, ref, corpus_id, texts[corpus_id]) for i, ref in enumerate(references)]
    return question_row(qid, text, evidence=evidence, category=corpus_id)


def _span(path: Path, line: int, i: int, ref: object, corpus_id: str, text: str) -> dict:
    name = f"references[{i}]"
    if not isinstance(ref, dict):
        raise DataError(path, "must be an object", line=line, field=name)
    content, start, end = ref.get("content"), ref.get("start_index"), ref.get("end_index")
    if not isinstance(content, str) or not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
        raise DataError(path, "needs string content and integer start_index, end_index", line=line, field=name)
    if not 0 <= start < end <= len(text) or text[start:end] != content:
        raise DataError(
            path,
            f"{corpus_id}.md[{start}:{end}] does not equal its content {content[:40]!r}",
            line=line,
            field=name,
            fix="offsets are 0-based code points into the UTF-8 corpus file, end exclusive",
        )
    return {"doc_id": corpus_id, "start": start, "end": end}
