"""Results produced elsewhere, as chunks of the dataset's documents: the format every external route shares.

One question's results are a list, best first, of objects naming a chunk either by offsets or by text:

    {"doc_id": "a.md", "start": 0, "end": 120, "score": 3.2}
    {"doc_id": "a.md", "text": "exact chunk text", "score": 2.9}

Offsets are code points into the document text, end exclusive; with ``text`` too, the text must be
what the offsets hold (exactly, or up to whitespace and Unicode forms), which catches offsets counted
in bytes or UTF-16 units. A text alone is located with ``data/locate.find_excerpt``: verbatim, else
tolerant of whitespace and Unicode normalisation; when it occurs several times, the first occurrence
this question's list does not already hold (counted as ambiguous). ``score`` is on every result of a
list or on none, and never rises down the list (the list order is the ranking); without scores each
result scores -rank. ``metadata`` is free-form and ignored.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rag_bench.core.errors import DataError
from rag_bench.core.types import Chunk, Document
from rag_bench.data.locate import Match, find_excerpt
from rag_bench.retrieve.base import Candidates, RetrievalStats

RESULT_FIELDS = ("doc_id", "start", "end", "text", "score", "metadata")
SHOW = 20  # question ids listed in a report


@dataclass(frozen=True)
class Where:
    """Where results came from, for error messages: a file and line, or a service or function and a question."""

    source: str
    line: int | None = None
    question: str | None = None

    def error(self, problem: str, fix: str, at: str | None = None) -> DataError:
        place = self.source if self.question is None else f"{self.source} (question {self.question!r})"
        return DataError(place, problem, line=self.line, field=at, fix=fix)


@dataclass(frozen=True)
class Ranked:
    """One result as a chunk of a document, with its score (None when the list has none)."""

    chunk: Chunk
    score: float | None


@dataclass
class Tally:
    """How the results were placed: by offsets, by text found verbatim, or only after normalisation."""

    results: int = 0
    by_offsets: int = 0
    located_exact: int = 0
    located_tolerant: int = 0
    ambiguous: int = 0  # texts that occur more than once in their document
    cut_at_depth: int = 0  # questions whose list was longer than the depth asked for

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


@dataclass
class ResultReader:
    """Turns result objects into ``Ranked`` chunks of ``documents``, counting how each was placed."""

    documents: Mapping[str, Document]
    tally: Tally = field(default_factory=Tally)

    def ranking(self, results: object, where: Where) -> list[Ranked]:
        """One question's results (a list of result objects, best first) as ranked chunks."""
        if not isinstance(results, list):
            raise where.error(f"results must be a list, got {type(results).__name__}", "send a JSON list", "results")
        ranked: list[Ranked] = []
        seen: set[str] = set()
        for i, result in enumerate(results):
            at = f"results[{i}]"
            chunk = self.chunk(result, seen, where, at)
            if chunk.id in seen:
                raise where.error(f"lists chunk {chunk.id} twice", "keep each chunk once per question", at)
            seen.add(chunk.id)
            ranked.append(Ranked(chunk, _score(result, where, at)))
        check_scores(ranked, where)
        self.tally.results += len(ranked)
        return ranked

    def chunk(self, result: object, taken: set[str], where: Where, at: str) -> Chunk:
        """The chunk one result names (by offsets, else by text), avoiding chunks in ``taken`` for repeated texts."""
        if not isinstance(result, dict):
            raise where.error(f"must be an object, got {type(result).__name__}", "give {doc_id, start, end}", at)
        unknown = sorted(set(result) - set(RESULT_FIELDS))
        if unknown:
            fix = f"allowed fields are {', '.join(RESULT_FIELDS)}; put anything else under metadata"
            raise where.error(f"unknown field {unknown[0]!r}", fix, f"{at}.{unknown[0]}")
        doc = self.document(result.get("doc_id"), where, f"{at}.doc_id")
        text = result.get("text")
        if text is not None and not isinstance(text, str):
            raise where.error(f"must be a string, got {type(text).__name__}", "send the chunk's text", f"{at}.text")
        has_start, has_end = result.get("start") is not None, result.get("end") is not None
        if has_start or has_end:
            return self._by_offsets(doc, result, text, where, at)
        if text is None:
            raise where.error("names neither offsets nor text", "give start and end, or the chunk's text", at)
        return self._by_text(doc, text, taken, where, at)

    def document(self, doc_id: object, where: Where, at: str) -> Document:
        if not isinstance(doc_id, str | int) or isinstance(doc_id, bool):
            raise where.error("missing or not a string", "give each result the id of its document", at)
        doc = self.documents.get(str(doc_id))
        if doc is None:
            fix = "use the dataset's document ids (documents.jsonl id, or path under docs/)"
            raise where.error(f"unknown document {str(doc_id)!r}", fix, at)
        return doc

    def _by_offsets(self, doc: Document, result: dict, text: str | None, where: Where, at: str) -> Chunk:
        start, end = result.get("start"), result.get("end")
        for name, value in (("start", start), ("end", end)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise where.error(f"must be an integer, got {value!r}", "give both start and end", f"{at}.{name}")
        if not 0 <= start < end <= len(doc.text):
            raise where.error(
                f"[{start}, {end}) is not a span of document {doc.id!r} ({len(doc.text)} characters)",
                "give 0 <= start < end <= the document's length, in characters",
                at,
            )
        held = doc.text[start:end]
        if text is not None and not same_text(held, text):
            raise where.error(
                f"offsets [{start}, {end}) hold {_clip(held)} but text is {_clip(text)}",
                "offsets count code points of the document text (not bytes or UTF-16 units); or drop one of them",
                at,
            )
        self.tally.by_offsets += 1
        return Chunk(doc.id, start, end, held)

    def _by_text(self, doc: Document, text: str, taken: set[str], where: Where, at: str) -> Chunk:
        match = find_excerpt(doc.text, text)
        if match is None:
            raise where.error(
                f"text {_clip(text)} does not occur in document {doc.id!r}, even up to whitespace and Unicode forms",
                "send the chunk's text as it appears in the document, or give start and end",
                f"{at}.text",
            )
        if match.exact:
            self.tally.located_exact += 1
        else:
            self.tally.located_tolerant += 1
        if match.occurrences > 1:
            self.tally.ambiguous += 1
            match = _first_free(doc, text, match, taken)
        return Chunk(doc.id, match.start, match.end, doc.text[match.start : match.end])


def same_text(held: str, text: str) -> bool:
    """``text`` is ``held``, verbatim or up to whitespace and Unicode forms (the whole of it)."""
    if held == text:
        return True
    match = find_excerpt(held, text)
    return match is not None and not held[: match.start].strip() and not held[match.end :].strip()


def _first_free(doc: Document, text: str, match: Match, taken: set[str]) -> Match:
    """The first occurrence of ``text`` whose chunk is not in ``taken`` (the first when all are)."""
    at: Match | None = match
    while at is not None and f"{doc.id}:{at.start}-{at.end}" in taken:
        after = find_excerpt(doc.text[at.start + 1 :], text, tolerant=not match.exact)
        shift = at.start + 1
        at = None if after is None else Match(shift + after.start, shift + after.end, after.exact, match.occurrences)
    return at or match


def _score(result: dict, where: Where, at: str) -> float | None:
    """The result's score as a float; a DataError for anything but a number that a float holds (not bool,
    NaN, infinity, or an integer beyond the float range such as 10**400)."""
    score = result.get("score")
    if score is None:
        return None
    value = float(score) if isinstance(score, float) else _as_float(score)
    if value is None or not math.isfinite(value):
        big = isinstance(score, int) and not isinstance(score, bool) and value is None
        shown = f"an integer of {len(str(abs(score)))} digits, beyond the float range" if big else repr(score)
        raise where.error(f"must be a finite number, got {shown}", "send a number, or leave score out", f"{at}.score")
    return value


def _as_float(score: object) -> float | None:
    """An integer's float value (None for a bool, a non-number, or an integer too large for a float)."""
    if not isinstance(score, int) or isinstance(score, bool):
        return None
    try:
        return float(score)
    except OverflowError:
        return None


def check_scores(ranked: Sequence[Ranked], where: Where) -> None:
    """Scores on all results or none, never rising down the list (the order is the ranking)."""
    given = [r.score is not None for r in ranked]
    if any(given) and not all(given):
        i = given.index(not given[0])
        raise where.error(
            "some results have a score and some do not", "give every result a score, or none", f"results[{i}].score"
        )
    for i in range(1, len(ranked) if all(given) else 0):
        if ranked[i].score > ranked[i - 1].score:
            raise where.error(
                f"score {ranked[i].score:g} is higher than the one before it ({ranked[i - 1].score:g})",
                "list results best first (score descending), or leave scores out",
                f"results[{i}].score",
            )


def to_candidates(rankings: Sequence[Sequence[Ranked]], depth: int, tally: Tally, details: dict) -> Candidates:
    """The rankings (one per question, in question order) cut at ``depth``, as candidates over their own chunks.

    The chunk table holds each distinct chunk once, in order of first appearance; indices are
    (n_questions, width) int64, -1 padded, scores float64, -inf padded.
    """
    position: dict[str, int] = {}
    table: list[Chunk] = []
    width = max(1, min(depth, max((len(r) for r in rankings), default=0)))
    indices = np.full((len(rankings), width), -1, dtype=np.int64)
    scores = np.full((len(rankings), width), -np.inf)
    for q, ranking in enumerate(rankings):
        tally.cut_at_depth += len(ranking) > depth
        for r, item in enumerate(ranking[:depth]):
            if item.chunk.id not in position:
                position[item.chunk.id] = len(table)
                table.append(item.chunk)
            indices[q, r] = position[item.chunk.id]
            scores[q, r] = item.score if item.score is not None else -(r + 1.0)
    stats = RetrievalStats(details={**details, **tally.as_dict()})
    return Candidates(table, indices, scores, stats)


def some(ids: Sequence[str]) -> list[str]:
    """The first ids of a list for a report (``SHOW`` at most)."""
    return list(ids[:SHOW])


def _clip(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 3] + "...")
