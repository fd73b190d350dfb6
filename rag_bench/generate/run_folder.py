"""Read what a retrieval run left behind: its dataset, tau, and each question's top chunks.

A run folder (written by ``rag-bench``) holds ``config.yaml`` (the resolved config: dataset
name or path, tau) and ``per_question.csv`` whose ``top_chunks`` column is a JSON list of
chunk ids ``doc_id:start-end``, best first. A chunk's text is ``document.text[start:end]``;
doc ids may contain ':' so the id splits at its last ':'.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

from omegaconf import OmegaConf

from rag_bench.data.bundled import dataset_folder
from rag_bench.data.native import load_dataset
from rag_bench.errors import DataError
from rag_bench.types import Chunk, Dataset, Document, Question

FIX = "give a run folder written by `rag-bench` (it holds config.yaml and per_question.csv)"


@dataclass(frozen=True)
class RetrievedRun:
    """A run's questions (in per_question.csv order) with their ranked chunks."""

    folder: Path
    dataset: Dataset
    tau: float
    questions: tuple[Question, ...]
    ranked: tuple[tuple[Chunk, ...], ...]  # ranked[i]: chunks of questions[i], best first


def read_run(folder: Path) -> RetrievedRun:
    """Load the run in ``folder`` and the dataset it was scored on."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(folder, "is not a folder", fix=FIX)
    config_path = folder / "config.yaml"
    if not config_path.is_file():
        raise DataError(config_path, "not found", fix=FIX)
    try:
        config = OmegaConf.load(config_path)
        name, path, tau = config.dataset.name, config.dataset.path, float(config.tau)
    except Exception as exc:  # any YAML or key problem: the file is not a run config
        raise DataError(config_path, f"is not a rag-bench run config ({type(exc).__name__})", fix=FIX) from None
    dataset = load_dataset(dataset_folder(name, path), name)
    questions, ranked = read_top_chunks(folder / "per_question.csv", dataset)
    return RetrievedRun(folder, dataset, tau, questions, ranked)


def read_top_chunks(path: Path, dataset: Dataset) -> tuple[tuple[Question, ...], tuple[tuple[Chunk, ...], ...]]:
    """Each row's question and its ``top_chunks`` as chunks of ``dataset``'s documents."""
    if not path.is_file():
        raise DataError(path, "not found", fix=FIX)
    by_id = {q.id: q for q in dataset.questions}
    documents = {d.id: d for d in dataset.documents}
    questions, ranked = [], []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for column in ("question_id", "top_chunks"):
            if column not in (reader.fieldnames or []):
                raise DataError(path, f"has no {column!r} column", line=1, field=column, fix=FIX)
        for row in reader:
            line = reader.line_num
            qid = row["question_id"]
            if qid not in by_id:
                raise DataError(
                    path,
                    f"question {qid!r} is not in dataset {dataset.name!r}",
                    line=line,
                    field="question_id",
                    fix="run check-generation with the dataset the run was scored on",
                )
            ids = _chunk_ids(path, line, row["top_chunks"])
            questions.append(by_id[qid])
            ranked.append(tuple(_chunk(path, line, chunk_id, documents) for chunk_id in ids))
    return tuple(questions), tuple(ranked)


def _chunk_ids(path: Path, line: int, raw: str | None) -> list[str]:
    try:
        ids = json.loads(raw or "")
    except json.JSONDecodeError as exc:
        raise DataError(path, f"malformed JSON ({exc.msg})", line=line, field="top_chunks", fix=FIX) from None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise DataError(path, "must be a JSON list of chunk ids", line=line, field="top_chunks", fix=FIX)
    return ids


def _chunk(path: Path, line: int, chunk_id: str, documents: dict[str, Document]) -> Chunk:
    """``"a.md:10-80"`` -> Chunk over characters [10, 80) of document ``a.md``."""
    doc_id, _, offsets = chunk_id.rpartition(":")
    start, _, end = offsets.partition("-")
    if not doc_id or not start.isdigit() or not end.isdigit():
        raise DataError(path, f"chunk id {chunk_id!r} is not doc_id:start-end", line=line, field="top_chunks", fix=FIX)
    doc = documents.get(doc_id)
    if doc is None:
        raise DataError(path, f"chunk {chunk_id!r} names an unknown document", line=line, field="top_chunks", fix=FIX)
    lo, hi = int(start), int(end)
    if not 0 <= lo < hi <= len(doc.text):
        raise DataError(
            path,
            f"chunk {chunk_id!r} lies outside document {doc_id!r} ({len(doc.text)} characters)",
            line=line,
            field="top_chunks",
            fix="the run was scored on another version of the dataset",
        )
    return Chunk(doc_id, lo, hi, doc.text[lo:hi])
