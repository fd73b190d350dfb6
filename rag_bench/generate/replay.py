"""Replay answers produced by another stack, from a JSONL file.

One object a line: ``{"question_id": "ar-001", "answer": "... [1]", "citations": [1]}``.
``citations`` (passage numbers, from 1) is optional: without it the ``[n]`` markers of the
answer are used. ``refused`` (bool) is optional: without it an answer refuses when it
holds the refusal phrase.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.errors import ConfigError, DataError
from rag_bench.data.jsonl import field, read_jsonl, reject_unknown
from rag_bench.generate.base import Answer, GeneratorConfig, is_refusal, parse_citations
from rag_bench.generate.prompt import Prompt

FIELDS = {"question_id", "answer", "citations", "refused"}


@dataclass
class ReplayConfig(GeneratorConfig):
    """Answers produced elsewhere, read from a JSONL file."""

    name: str = "replay"
    path: str | None = None  # the JSONL file of answers (required)


def build(cfg: ReplayConfig) -> ReplayGenerator:
    """The generator ``generator=replay`` names; a ConfigError without its file."""
    if not cfg.path:
        raise ConfigError("generator=replay needs the answers file: add generator.path=<answers.jsonl>")
    return ReplayGenerator(cfg.path)


def load_replay(path: Path) -> dict[str, Answer]:
    """Question id -> answer; a DataError naming file, line and field for any bad line."""
    answers: dict[str, Answer] = {}
    lines: dict[str, int] = {}
    for line, obj in read_jsonl(path):
        reject_unknown(path, line, obj, FIELDS)
        qid = str(field(path, line, obj, "question_id", (str, int)))
        if qid in lines:
            raise DataError(
                path,
                f"duplicate answer for question {qid!r} (first on line {lines[qid]})",
                line=line,
                field="question_id",
                fix="keep one answer per question",
            )
        text = field(path, line, obj, "answer", str)
        citations = _citations(path, line, obj.get("citations"), text)
        refused = field(path, line, obj, "refused", bool, required=False)
        answers[qid] = Answer(text, citations, is_refusal(text) if refused is None else refused)
        lines[qid] = line
    return answers


def _citations(path: Path, line: int, value: object, text: str) -> tuple[int, ...]:
    if value is None:
        return parse_citations(text)
    if not isinstance(value, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in value):
        raise DataError(
            path,
            f"must be a list of passage numbers, got {value!r}",
            line=line,
            field="citations",
            fix="write e.g. [1, 3] (passages are numbered from 1), or leave the field out",
        )
    return tuple(dict.fromkeys(value))


class ReplayGenerator:
    """``generator=replay generator.path=answers.jsonl``."""

    name = "replay"

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.answers = load_replay(self.path)
        self.key = "replay/" + hashlib.sha256(self.path.read_bytes()).hexdigest()

    def answer(self, prompt: Prompt) -> Answer:
        qid = prompt.question.id
        if qid not in self.answers:
            raise DataError(
                self.path,
                f"has no answer for question {qid!r}",
                fix="add one line for every question of the run (a refusal is an answer too)",
            )
        return self.answers[qid]

    def close(self) -> None:
        pass
