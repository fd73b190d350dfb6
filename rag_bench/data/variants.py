"""The variants file: rewrites of each question, written by ``rag-bench rewrite``, read by retrieval runs.

JSON Lines, one (question, kind) a line:

    {"question_id": "tech-001", "kind": "keywords", "texts": ["KOS-E1107 mean rollout"], "question": "What ..."}

``kind`` is one of ``KINDS``; ``texts`` holds that kind's rewrites (several paraphrases or
sub-questions; none when the kind has nothing to add, e.g. a question that does not decompose).
``question`` (optional) is the question's text when the line was written: a run stops when it
differs from the dataset's, because the rewrite is then stale.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.cache import atomic_write
from rag_bench.core.errors import ConfigError, DataError
from rag_bench.core.types import Dataset
from rag_bench.data.jsonl import field, read_jsonl, reject_unknown

# kind -> the mode its texts are embedded in: a HyDE passage is embedded as a passage (document mode)
KINDS: dict[str, str] = {"paraphrase": "query", "hyde": "document", "decompose": "query", "keywords": "query"}
FIELDS = {"question_id", "kind", "texts", "question"}
REWRITE_FIX = "rewrite them for this dataset: rag-bench rewrite dataset=... out=FILE"
SHOW = 5  # question ids named in a message


@dataclass(frozen=True)
class VariantEntry:
    """The rewrites of kind ``kind`` of question ``question_id`` (``line``: where it was read, 0 if built)."""

    question_id: str
    kind: str
    texts: tuple[str, ...]
    question: str | None = None
    line: int = 0

    def to_json(self) -> dict:
        row = {"question_id": self.question_id, "kind": self.kind, "texts": list(self.texts)}
        return row if self.question is None else {**row, "question": self.question}


def read_variants(path: str | Path) -> list[VariantEntry]:
    """Every entry of the file; a DataError naming the file, line and field for any bad line."""
    path = Path(path)
    entries: list[VariantEntry] = []
    seen: dict[tuple[str, str], int] = {}
    for line, obj in read_jsonl(path):
        reject_unknown(path, line, obj, FIELDS)
        qid = str(field(path, line, obj, "question_id", (str, int)))
        kind = field(path, line, obj, "kind", str)
        if kind not in KINDS:
            allowed = ", ".join(KINDS)
            raise DataError(path, f"unknown kind {kind!r}", line=line, field="kind", fix=f"use one of {allowed}")
        texts = field(path, line, obj, "texts", list)
        if not all(isinstance(t, str) and t.strip() for t in texts):
            raise DataError(
                path, "must be a list of non-empty strings", line=line, field="texts", fix="drop empty rewrites"
            )
        if (qid, kind) in seen:
            raise DataError(
                path,
                f"repeats question {qid!r}, kind {kind!r} (first on line {seen[qid, kind]})",
                line=line,
                field="question_id",
                fix="keep one line per question and kind, with all its texts in 'texts'",
            )
        seen[qid, kind] = line
        question = field(path, line, obj, "question", str, required=False)
        entries.append(VariantEntry(qid, kind, tuple(texts), question, line))
    return entries


def write_variants(path: str | Path, entries: Iterable[VariantEntry]) -> int:
    """Write ``entries`` atomically (temporary file + rename); returns how many lines were written."""
    rows = [json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in entries]
    atomic_write(Path(path), lambda handle: handle.write("".join(rows).encode("utf-8")))
    return len(rows)


def kinds_in(entries: Sequence[VariantEntry]) -> list[str]:
    """The kinds a file holds, in ``KINDS`` order."""
    present = {e.kind for e in entries}
    return [k for k in KINDS if k in present]


def select(
    path: str | Path, entries: Sequence[VariantEntry], dataset: Dataset, kinds: Sequence[str]
) -> dict[str, dict[str, tuple[str, ...]]]:
    """question id -> kind -> texts, for every question of ``dataset`` and every kind in ``kinds``.

    A question id the dataset lacks, a question with no line of a chosen kind, or a line whose
    ``question`` text differs from the dataset's is a DataError naming the file and the fix.
    """
    questions = {q.id: q.text for q in dataset.questions}
    for entry in entries:
        if entry.question_id not in questions:
            raise DataError(
                path,
                f"question {entry.question_id!r} is not a question of dataset {dataset.name!r}",
                line=entry.line or None,
                field="question_id",
                fix=f"the file belongs to another dataset; {REWRITE_FIX}",
            )
        if entry.kind in kinds and entry.question is not None and entry.question != questions[entry.question_id]:
            raise DataError(
                path,
                f"was written for question {entry.question_id!r} reading {entry.question!r}, but the dataset's "
                f"question now reads {questions[entry.question_id]!r}",
                line=entry.line or None,
                field="question",
                fix=f"the rewrite is stale; {REWRITE_FIX}",
            )
    chosen = {(e.question_id, e.kind): e.texts for e in entries if e.kind in kinds}
    for kind in kinds:
        missing = [qid for qid in questions if (qid, kind) not in chosen]
        if missing:
            more = f", ... ({len(missing) - SHOW} more)" if len(missing) > SHOW else ""
            raise DataError(
                path,
                f"has no {kind!r} line for {len(missing)} of the {len(questions)} questions of {dataset.name!r} "
                f"({', '.join(missing[:SHOW])}{more})",
                fix=f"{REWRITE_FIX} kinds=[{kind}], or leave {kind} out of retrieval.variant_kinds",
            )
    return {qid: {kind: chosen[qid, kind] for kind in kinds} for qid in questions}


def check_kinds(kinds: Sequence[str], key: str) -> None:
    """``kinds`` must be distinct names from ``KINDS``; a ConfigError naming ``key`` otherwise."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or len(set(kinds)) != len(kinds):
        raise ConfigError(f"{key} ({list(kinds)}) must list distinct kinds among: {', '.join(KINDS)}")
