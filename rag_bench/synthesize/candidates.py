"""Candidate questions before the checks, and the ``replay`` generator that reads them from a file.

A replay file holds one JSON object a line, produced by any other tool:
``{"doc_id": "a.md", "question": "...", "excerpt": "verbatim text of a.md", "answer": "...", "category": "..."}``
(``answer`` and ``category`` optional). A line of the wrong shape stops with one error naming
the line; a candidate with the right shape but wrong content (unknown document, invented
excerpt) is rejected by the checks with its reason.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from omegaconf import MISSING

from rag_bench.core.errors import ConfigError
from rag_bench.data.jsonl import field, read_jsonl, reject_unknown

REPLAY_FIELDS = {"doc_id", "question", "excerpt", "answer", "category"}


@dataclass(frozen=True)
class Candidate:
    """A generated question with its claimed evidence; ``problem`` when the generator's output was unusable."""

    doc_id: str
    question: str
    excerpt: str
    answer: str | None = None
    category: str | None = None
    origin: str = ""  # where it came from: "candidates.jsonl:3", "anthropic a.md/identifier #2"
    problem: str | None = None


@dataclass
class SynthGeneratorConfig:
    """Every candidate generator: its name."""

    name: str = MISSING


@dataclass
class ReplaySynthConfig(SynthGeneratorConfig):
    """Candidates produced elsewhere: JSONL of {doc_id, question, excerpt, answer?, category?}."""

    name: str = "replay"
    path: str | None = None  # the candidates file (required)


class ReplayCandidates:
    """``generator=replay generator.path=FILE``."""

    def __init__(self, cfg: ReplaySynthConfig, documents, cache) -> None:
        if not cfg.path:
            raise ConfigError("generator=replay needs generator.path=<file of {doc_id, question, excerpt, answer?}>")
        self.path = Path(cfg.path)
        self.usage: dict[str, int] = {}
        self.cost_usd: float | None = None
        digest = hashlib.sha256(self.path.read_bytes()).hexdigest() if self.path.is_file() else None
        self.settings = {"name": "replay", "path": str(self.path), "sha256": digest}

    def candidates(self, documents, bar) -> Iterator[Candidate]:
        for line, obj in read_jsonl(self.path):
            reject_unknown(self.path, line, obj, REPLAY_FIELDS)
            doc_id = field(self.path, line, obj, "doc_id", (str, int), required=False)
            yield Candidate(
                doc_id="" if doc_id is None else str(doc_id),
                question=field(self.path, line, obj, "question", str, required=False) or "",
                excerpt=field(self.path, line, obj, "excerpt", str, required=False) or "",
                answer=field(self.path, line, obj, "answer", str, required=False),
                category=field(self.path, line, obj, "category", str, required=False),
                origin=f"{self.path.name}:{line}",
            )
            bar.update(1)

    def close(self) -> None:
        pass
