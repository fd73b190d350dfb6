"""BEIR folders to native datasets.

A BEIR folder holds ``corpus.jsonl`` (``{"_id", "title", "text"}``, optional ``metadata``),
``queries.jsonl`` (``{"_id", "text"}``) and ``qrels/<split>.tsv``: a header line
``query-id corpus-id score``, then one tab-separated judgement per line. Grades are kept
as they are (graded relevance); grade 0 stays, as a judged non-relevant document. By
default only the queries judged in the split become questions. Other fields are ignored.
The dataset records BEIR's conventions (one passage per document, title prepended, Anserini's
BM25) in ``conventions.yaml``: see ``rag_bench/data/conventions.py``.
"""

from __future__ import annotations

from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.data.conventions import BEIR
from rag_bench.data.jsonl import field, read_jsonl
from rag_bench.importers.common import Imported, add_judgement, check_id, document_row, question_row

HEADER = ("query-id", "corpus-id", "score")


def read_beir(folder: Path, split: str = "test", all_queries: bool = False) -> Imported:
    """The dataset in BEIR ``folder``: its corpus, and its queries judged in ``split`` (or all)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(folder, "is not a folder", fix="give the BEIR folder holding corpus.jsonl")
    documents = read_corpus(folder / "corpus.jsonl")
    queries = read_queries(folder / "queries.jsonl")
    qrels_path = qrels_file(folder, split)
    qrels = read_qrels_tsv(qrels_path, set(queries), {d["id"] for d in documents})
    questions = [
        question_row(qid, text, judgements=qrels.get(qid), split=split)
        for qid, text in queries.items()
        if all_queries or qid in qrels
    ]
    if not questions:
        raise DataError(qrels_path, "judges none of the queries", fix="use a qrels file for these queries")
    notes = () if all_queries else (f"kept {len(questions)} of {len(queries)} queries: those judged in {split}",)
    return Imported(documents, questions, notes=notes, conventions=BEIR)


def qrels_file(folder: Path, split: str) -> Path:
    """``folder/qrels/<split>.tsv``; a DataError listing the splits there when it is missing."""
    path = folder / "qrels" / f"{split}.tsv"
    if not path.is_file():
        found = sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))
        raise DataError(path, "not found", fix=f"choose --split from: {', '.join(found) or '(no qrels files)'}")
    return path


def read_corpus(path: Path) -> list[dict]:
    """Native document rows from a BEIR ``corpus.jsonl``."""
    rows, seen = [], {}
    for line, obj in read_jsonl(path):
        doc_id = _unique_id(path, line, field(path, line, obj, "_id", (str, int)), seen)
        text = field(path, line, obj, "text", str)
        title = field(path, line, obj, "title", str, required=False)
        metadata = field(path, line, obj, "metadata", dict, required=False)
        rows.append(document_row(doc_id, text, title or None, metadata))
    if not rows:
        raise DataError(path, "holds no documents", fix="add documents")
    return rows


def read_queries(path: Path) -> dict[str, str]:
    """Query id -> text from a BEIR ``queries.jsonl``, in file order."""
    queries, seen = {}, {}
    for line, obj in read_jsonl(path):
        qid = _unique_id(path, line, field(path, line, obj, "_id", (str, int)), seen)
        queries[qid] = field(path, line, obj, "text", str)
    return queries


def read_qrels_tsv(path: Path, query_ids: set[str], doc_ids: set[str]) -> dict[str, dict[str, int]]:
    """Query id -> {document id: grade} from a BEIR qrels TSV (header line optional)."""
    qrels: dict[str, dict[str, int]] = {}
    first_seen: dict[tuple[str, str], int] = {}
    for row, (number, fields) in enumerate(_tsv_rows(path)):
        if len(fields) != 3:
            raise DataError(
                path,
                f"has {len(fields)} fields",
                line=number,
                fix="write 'query-id<TAB>corpus-id<TAB>score' on every line",
            )
        qid, doc_id, score = fields
        if row == 0 and not _is_int(score):
            continue  # the header
        if not _is_int(score):
            raise DataError(path, f"{score!r} is not an integer grade", line=number, field="score")
        if qid not in query_ids:
            raise DataError(
                path,
                f"unknown query id {qid!r}",
                line=number,
                field="query-id",
                fix="add the query to queries.jsonl or drop the line",
            )
        if doc_id not in doc_ids:
            raise DataError(
                path,
                f"unknown corpus id {doc_id!r}",
                line=number,
                field="corpus-id",
                fix="add the document to corpus.jsonl or drop the line",
            )
        add_judgement(qrels, first_seen, path, number, qid, doc_id, int(score))
    return qrels


def _tsv_rows(path: Path):
    """``(line_number, fields)`` for each non-blank line, split on tabs (or on spaces when tab-free)."""
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror})", fix="check the path") from None
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                text = line.rstrip("\r\n")
                if text.strip():
                    yield number, [f.strip() for f in text.split("\t")] if "\t" in text else text.split()
        except UnicodeDecodeError as exc:
            raise DataError(path, f"is not UTF-8 (byte {exc.start})", fix="save it as UTF-8") from None


def _is_int(text: str) -> bool:
    return text.lstrip("+-").isdigit()


def _unique_id(path: Path, line: int, value: str | int, seen: dict[str, int]) -> str:
    ident = check_id(path, value, "_id", line)
    if ident in seen:
        raise DataError(
            path,
            f"duplicate id {ident!r} (first on line {seen[ident]})",
            line=line,
            field="_id",
            fix="give every entry a unique _id",
        )
    seen[ident] = line
    return ident
