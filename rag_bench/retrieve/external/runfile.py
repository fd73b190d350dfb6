"""Rankings produced elsewhere, read from a run file (``retrieval=external retrieval.run=FILE``).

Two formats (``retrieval.run_format``; ``auto``: ``.jsonl`` / ``.json`` files are JSONL, others TREC):

- TREC (``qid Q0 docno rank score tag``), ordered as trec_eval orders it: score descending (compared
  as float32, as trec_eval does), then docno descending (string order); the rank column is checked,
  not used (``core/ties.trec_order``). A docno is a document id
  (the chunk is the whole document, so questions with judgements score exactly as pytrec_eval scores
  the file) or a chunk id ``doc_id:start-end`` as rag-bench writes it (span level).
- JSONL, one line per question: ``{"question_id": "q1", "results": [...]}``, results best first as in
  ``results.py`` (offsets or text).

A question the file names that the dataset lacks is an error; a question it does not name retrieved
nothing, and is counted and listed in ``stats.retrieval.external``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.errors import ConfigError, DataError
from rag_bench.core.options import one_of
from rag_bench.core.ties import trec_order
from rag_bench.core.types import Chunk
from rag_bench.data.jsonl import read_jsonl
from rag_bench.retrieve.base import Candidates, Query, RetrievalConfig
from rag_bench.retrieve.external.results import Ranked, ResultReader, Where, some, to_candidates
from rag_bench.retrieve.resources import Resources

FORMATS = ("auto", "trec", "jsonl")
JSONL_FIELDS = {"question_id", "question", "results"}
_CHUNK_ID = re.compile(r"^(?P<doc>.+):(?P<start>\d+)-(?P<end>\d+)$")


@dataclass
class ExternalSettings:
    """A run file's settings (also keys of ``retrieval=hybrid``)."""

    run: str | None = None  # the run file: TREC or JSONL
    run_format: str = "auto"  # auto (by extension: .jsonl/.json = JSONL), trec or jsonl

    def check(self) -> None:
        one_of("retrieval.run_format", self.run_format, FORMATS)


@dataclass
class ExternalConfig(ExternalSettings, RetrievalConfig):
    mode: str = "external"
    # your system applies its own filters: its results are scored as returned, and leak@k says what got through
    filter_mode: str = "none"
    depth: int = 1000  # a run file's lists are scored whole up to this many results


class RunFileRetriever:
    """Each question's ranking as the run file gives it, cut at ``depth``."""

    name = "external"

    def __init__(self, cfg: ExternalSettings, resources: Resources) -> None:
        if cfg.run is None:
            raise ConfigError("retrieval=external needs the run file: retrieval.run=FILE (TREC or JSONL)")
        self.path = Path(cfg.run).expanduser()
        if not self.path.is_file():
            raise ConfigError(f"retrieval.run ({cfg.run!r}) is not a file; give the path of a TREC or JSONL run")
        self.format = cfg.run_format if cfg.run_format != "auto" else _guess(self.path)
        self.resources = resources

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        dataset = self.resources.dataset
        reader = ResultReader({d.id: d for d in dataset.documents})
        known = {q.id for q in dataset.questions}
        read = read_trec if self.format == "trec" else read_results
        rankings, levels = read(self.path, reader, known)
        missing = [q.id for q in queries if q.id not in rankings]
        details = {
            "source": str(self.path),
            "format": self.format,
            "questions_in_run": len(rankings),
            "unmentioned": len(missing),
            "unmentioned_ids": some(missing),
            **levels,
        }
        return to_candidates([rankings.get(q.id, []) for q in queries], depth, reader.tally, details)


def read_trec(path: Path, reader: ResultReader, known: set[str]) -> tuple[dict[str, list[Ranked]], dict]:
    """qid -> ranked chunks in trec_eval's order, and how many docnos were documents or chunk ids."""
    rows: dict[str, dict[str, tuple[float, Chunk]]] = {}
    chunk_ids: dict[str, set[str]] = {}  # per question: a docno and a chunk id may name the same chunk
    levels = {"document_level": 0, "span_level": 0}
    for line, fields in _trec_rows(path):
        qid, _, docno, rank, score, _ = fields
        where = Where(str(path), line)
        if not rank.lstrip("+-").isdigit():
            raise where.error(f"rank {rank!r} is not an integer", "write 'qid Q0 docno rank score tag'", "rank")
        value = _number(score)
        if value is None:
            raise where.error(f"score {score!r} is not a finite number", "write a number in the score column", "score")
        _check_question(qid, known, where)
        chunk, level = _docno_chunk(docno, reader, where)
        ranking, ids = rows.setdefault(qid, {}), chunk_ids.setdefault(qid, set())
        if docno in ranking or chunk.id in ids:
            raise where.error(f"lists {docno!r} twice for {qid!r}", "keep each docno once per query", "docno")
        ranking[docno] = (value, chunk)
        ids.add(chunk.id)
        levels[level] += 1
    reader.tally.results += sum(levels.values())
    ordered = {
        qid: [Ranked(chunk, score) for _, score, chunk in trec_order((d, s, c) for d, (s, c) in r.items())]
        for qid, r in rows.items()
    }
    return ordered, levels


def _docno_chunk(docno: str, reader: ResultReader, where: Where) -> tuple[Chunk, str]:
    """The whole document ``docno`` names, else the chunk ``doc_id:start-end``; a DataError otherwise."""
    doc = reader.documents.get(docno)
    if doc is not None:
        reader.tally.by_offsets += 1
        return Chunk(doc.id, 0, len(doc.text), doc.text), "document_level"
    found = _CHUNK_ID.match(docno)
    if found is None or found["doc"] not in reader.documents:
        raise where.error(
            f"docno {docno!r} is neither a document id of the dataset nor a chunk id doc_id:start-end of one",
            "use the dataset's document ids, or chunk ids as rag-bench writes them in run.trec",
            "docno",
        )
    result = {"doc_id": found["doc"], "start": int(found["start"]), "end": int(found["end"])}
    return reader.chunk(result, set(), where, "docno"), "span_level"


def read_results(path: Path, reader: ResultReader, known: set[str]) -> tuple[dict[str, list[Ranked]], dict]:
    """qid -> ranked chunks from a JSONL run (one line per question)."""
    rankings: dict[str, list[Ranked]] = {}
    for line, row in read_jsonl(path):
        where = Where(str(path), line)
        unknown = sorted(set(row) - JSONL_FIELDS)
        if unknown:
            fix = f"allowed fields are {', '.join(sorted(JSONL_FIELDS))}"
            raise where.error(f"unknown field {unknown[0]!r}", fix, unknown[0])
        qid = row.get("question_id")
        if not isinstance(qid, str | int) or isinstance(qid, bool):
            raise where.error("missing or not a string", "give each line the id of its question", "question_id")
        qid = str(qid)
        _check_question(qid, known, where)
        if qid in rankings:
            raise where.error(f"question {qid!r} has a line already", "give each question one line", "question_id")
        if "results" not in row:
            raise where.error("missing", "add the question's results (a list, best first; [] for none)", "results")
        rankings[qid] = reader.ranking(row["results"], where)
    return rankings, {}


def _check_question(qid: str, known: set[str], where: Where) -> None:
    if qid not in known:
        raise where.error(
            f"question {qid!r} is not in the dataset",
            "score the run against the dataset it was made for, or drop that question's lines",
            "question_id",
        )


def _trec_rows(path: Path):
    """``(line_number, fields)`` of each non-blank line, each exactly six fields."""
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != 6:
                    fix = "write 'qid Q0 docno rank score tag'"
                    raise DataError(path, f"has {len(fields)} fields, expected 6", line=number, fix=fix)
                yield number, fields
    except UnicodeDecodeError as exc:
        raise DataError(path, f"is not UTF-8 (byte {exc.start})", fix="save it as UTF-8") from None


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _guess(path: Path) -> str:
    return "jsonl" if path.suffix.lower() in (".jsonl", ".json") else "trec"


def build(cfg: ExternalSettings, resources: Resources) -> RunFileRetriever:
    return RunFileRetriever(cfg, resources)
