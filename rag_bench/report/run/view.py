"""The data model of a run's explorer page: plain, JSON-serialisable, built from plain inputs.

``run_view(facts)`` returns a dict (the page embeds it as JSON and renders it in the browser):

  format       1 (the layout version; readers check it)
  run          title, dataset, report_k, tau, stages (names, the final one last), settings {key: value}
  metrics      [{name, mean, low, high}]: every aggregate with its 95% interval
  categories   [{name, n, metrics: {name: mean}}]
  languages    the same per language group (score/languages.py), only when the dataset gives languages
  failures     {category: {class: count}}, an ``all`` row first (``failures.failure_counts``)
  classes      the failure classes, misses first
  chunks       [{id, doc, start, end, text}]: each chunk some question shows, once
  questions    [{id, text, category, failure, first_hit, ranks: {stage: evidence rank},
                 evidence: [{doc, start, end, text}], relevant: [doc ids judged relevant],
                 top: [{chunk: index into chunks, hit, ranks: [rank per stage], scores: [score per stage]}],
                 beyond: [the same, for candidates below the top k that touch the evidence]}]

``top`` is the final list's top ``report_k``; ``beyond`` the (at most ``BEYOND``) candidates of any
stage outside it that touch an evidence span (judged questions: chunks of a relevant document), best
rank first: where the evidence went. Ranks start at 1 and are None where a stage does not hold the
chunk. Highlighting is left to the page: it has each chunk's and each span's offsets. Scores are rounded
to 6 significant digits here, since this model is only ever displayed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rag_bench.core.types import Chunk, Question
from rag_bench.report.run.packed import PACKED, pack_chunk, unpack_view
from rag_bench.report.run.places import stage_places, top_rows
from rag_bench.score.failures import CLASSES, HIT, MISSES, UNLABELLED, Diagnosis, failure_counts
from rag_bench.score.relevance import overlap, tau_ratio

FORMAT = 1
DISPLAY_CLASSES = (*MISSES, HIT, UNLABELLED)
BEYOND = 3  # evidence-touching candidates shown below the top k


@dataclass(frozen=True)
class Stage:
    """One stage's ranked lists: (n_questions, depth) chunk indices (-1 padded) and their scores."""

    name: str
    indices: np.ndarray
    scores: np.ndarray


@dataclass(frozen=True)
class RunFacts:
    """Everything the page shows, as plain data; ``stages`` in display order, the final list last."""

    title: str
    dataset: str
    settings: Mapping[str, object]
    documents: Mapping[str, str]  # document id -> text
    chunks: Sequence[Chunk]
    questions: Sequence[Question]
    stages: Sequence[Stage]
    diagnoses: Sequence[Diagnosis]
    metrics: Mapping[str, tuple[float, float, float]]  # name -> (mean, ci low, ci high)
    categories: Mapping[str, tuple[int, Mapping[str, float]]]  # name -> (questions, metric means)
    first_hits: Sequence[int | None]  # rank of the first hit in the final list, per question
    report_k: int = 10
    tau: float = 0.5
    languages: Mapping[str, tuple[int, Mapping[str, float]]] = field(default_factory=dict)  # as categories
    # per question (or empty): chunk index -> the spans it hits, for each chunk touching the question's evidence
    # at ``tau`` (``relevance.touching``, as the evaluation keeps them); None for a question without spans
    touching: Sequence[Mapping[int, frozenset[int]] | None] = ()


def run_view(facts: RunFacts) -> dict:
    """The page's data model (layout in the module docstring)."""
    return unpack_view(packed_view(facts), FORMAT)


def packed_view(facts: RunFacts) -> dict:
    """``pack_view(run_view(facts))``, made as such (``packed.py``): the model report.html embeds."""
    assert_aligned(facts)
    chunk_slots: dict[int, int] = {}
    rows = [(s.indices.tolist(), s.scores) for s in facts.stages]  # chunk lists made once; scores read as needed
    doc_of = [c.doc_id for c in facts.chunks]  # chunk index -> document
    stages = [(s.indices, s.scores) for s in facts.stages]
    top = top_rows(facts.stages[-1].indices, facts.report_k)  # (n, report_k) the final list's first chunks
    near = _near_rows(facts)  # (n, most touching) the chunks touching each question's evidence, -1 padded
    placed = zip(top.tolist(), stage_places(top, stages), near.tolist(), stage_places(near, stages), strict=True)
    questions = [_question(facts, q, chunk_slots, rows, doc_of, at) for q, at in enumerate(placed)]
    failures = [d.failure for d in facts.diagnoses]
    return {
        "format": PACKED,
        "run": {
            "title": facts.title,
            "dataset": facts.dataset,
            "report_k": facts.report_k,
            "tau": facts.tau,
            "stages": [s.name for s in facts.stages],
            "settings": {key: _plain(value) for key, value in facts.settings.items()},
        },
        "metrics": [
            {"name": name, "mean": _num(m), "low": _num(lo), "high": _num(hi)}
            for name, (m, lo, hi) in facts.metrics.items()
        ],
        "categories": _groups(facts.categories),
        **({"languages": _groups(facts.languages)} if facts.languages else {}),
        "failures": failure_counts(failures, [q.category for q in facts.questions]),
        "classes": list(DISPLAY_CLASSES),
        "chunks": [pack_chunk(_chunk(facts.chunks[c])) for c in chunk_slots],
        "questions": questions,
    }


def _groups(groups: Mapping[str, tuple[int, Mapping[str, float]]]) -> list[dict]:
    """Categories or language groups: ``[{name, n, metrics: {name: mean}}]``."""
    return [
        {"name": name, "n": n, "metrics": {k: _num(v) for k, v in means.items()}} for name, (n, means) in groups.items()
    ]


def assert_aligned(facts: RunFacts) -> None:
    """ValueError unless every per-question input has one row per question."""
    n = len(facts.questions)
    sizes = {"diagnoses": len(facts.diagnoses), "first_hits": len(facts.first_hits)}
    sizes |= {f"stage {s.name}": len(s.indices) for s in facts.stages}
    wrong = {name: size for name, size in sizes.items() if size != n}
    if wrong or not facts.stages:
        raise ValueError(f"{n} questions but {wrong or 'no stages'}: every input needs one row per question")
    unknown = {d.failure for d in facts.diagnoses} - set(CLASSES)
    if unknown:
        raise ValueError(f"unknown failure classes {sorted(unknown)}")


def _question(
    facts: RunFacts,
    q: int,
    chunk_slots: dict[int, int],
    rows: list[tuple[list, list]],
    doc_of: list[str],
    placed: tuple[list, list, list, list],
) -> list:
    """Question ``q``'s part of the packed model (``packed.QUESTION_KEYS``); ``placed``: its top chunks (-1
    padded) and their ranks and shown scores per stage (``places.stage_places``), then the same of the chunks
    touching its evidence (``_near_rows``)."""
    question, diagnosis = facts.questions[q], facts.diagnoses[q]
    lists = [(indices[q], scores[q]) for indices, scores in rows]  # each stage's row for this question
    top_row, places, near_row, near_places = placed
    top = [c for c in top_row if c >= 0]
    shown = set(top)
    near = facts.touching[q] if facts.touching and question.has_evidence else None
    if near is not None:  # the chunks touching the evidence are known: only they can be shown beyond or hit
        found = dict(zip(near_row, near_places, strict=False))  # chunk -> its ranks and scores per stage
        best, hit = _best_of(found, len(rows)), lambda c: bool(near.get(c))
    else:
        best, hit = _evidence_ranks(question, lists, doc_of), _hitter(facts.chunks, question, facts.tau)
    beyond = sorted(
        (c for c in best if c not in shown and (near is not None or _touches(facts.chunks[c], question))),
        key=lambda c: (best[c], c),
    )[:BEYOND]

    def entry(c: int) -> list:
        if near is not None:
            return [chunk_slots.setdefault(c, len(chunk_slots)), int(hit(c)), *found[c]]
        ranks, shown = [], []  # per stage: c's rank and its score, rounded for display (None: not listed)
        for row, scores in lists:
            times = row.count(c)  # its last place, should the list hold it twice
            if times:
                at = row.index(c) if times == 1 else len(row) - 1 - row[::-1].index(c)
                ranks.append(at + 1)
                value = float(scores[at])  # the Python float of the array's value, as tolist makes it
                shown.append(float(f"{value:.6g}") if math.isfinite(value) else None)  # _rounded
            else:
                ranks.append(None)
                shown.append(None)
        return [chunk_slots.setdefault(c, len(chunk_slots)), int(hit(c)), *ranks, *shown]

    return [
        question.id,
        question.text,
        question.category,
        diagnosis.failure,
        facts.first_hits[q],
        dict(diagnosis.ranks),
        [[s.doc_id, s.start, s.end, facts.documents[s.doc_id][s.start : s.end]] for s in question.spans],
        sorted(d for d, grade in question.judgements.items() if grade > 0),
        [[chunk_slots.setdefault(c, len(chunk_slots)), int(hit(c)), *at] for c, at in zip(top, places, strict=False)],
        [entry(c) for c in beyond],
    ]


def _evidence_ranks(question: Question, lists: list[tuple[list, list]], doc_of: list[str]) -> dict[int, int]:
    """Candidate in an evidence document (judged: a judged document) -> its best rank over the stages."""
    docs = {s.doc_id for s in question.spans} if question.has_evidence else set(question.judgements)
    best: dict[int, int] = {}
    for row, _ in lists:
        ranks = {c: rank for rank, c in enumerate(row, start=1) if c >= 0 and doc_of[c] in docs}
        for c, rank in ranks.items():  # a chunk a list holds twice ranks where it is last
            if rank < best.get(c, rank + 1):
                best[c] = rank
    return best


def _near_rows(facts: RunFacts) -> np.ndarray:
    """(n, m) int64: each question's chunks touching its evidence (``touching``, in its order), -1 padded;
    none for a question whose touching chunks are not known."""
    known = facts.touching if facts.touching else [None] * len(facts.questions)
    rows = [list(near or ()) if q.has_evidence else [] for q, near in zip(facts.questions, known, strict=True)]
    width = max(map(len, rows), default=0)
    return np.array([row + [-1] * (width - len(row)) for row in rows], dtype=np.int64).reshape(len(rows), width)


def _best_of(found: Mapping[int, list], stages: int) -> dict[int, int]:
    """Chunk -> its best rank over the stages, of the chunks some stage lists (``found``: ranks then scores)."""
    best: dict[int, int] = {}
    for c, at in found.items():
        ranks = [r for r in at[:stages] if r is not None]
        if ranks:
            best[c] = min(ranks)
    return best


def _hitter(chunks: Sequence[Chunk], question: Question, tau: float):
    """Chunk index -> whether that chunk hits the question's evidence: ``relevance.hits``, the same integers."""
    if not question.has_evidence:
        return lambda c: question.judgements.get(chunks[c].doc_id, 0) > 0
    p, q = tau_ratio(tau)
    spans = [(s.doc_id, s.start, s.end) for s in question.spans]

    def hit(c: int) -> bool:
        chunk = chunks[c]
        for doc, start, end in spans:
            shared = min(chunk.end, end) - max(chunk.start, start) if chunk.doc_id == doc else 0
            if shared >= 1 and shared * q >= p * min(chunk.end - chunk.start, end - start):
                return True
        return False

    return hit


def _touches(chunk: Chunk, question: Question) -> bool:
    if question.has_evidence:
        return any(overlap(chunk, span) > 0 for span in question.spans)
    return question.judgements.get(chunk.doc_id, 0) > 0


def _chunk(chunk: Chunk) -> dict:
    return {"id": chunk.id, "doc": chunk.doc_id, "start": chunk.start, "end": chunk.end, "text": chunk.text}


def _num(value: object) -> float | None:
    """A finite number rounded to 6 significant digits for display, None otherwise (JSON has no NaN)."""
    if value is None or not isinstance(value, int | float | np.floating | np.integer):
        return None
    value = float(value)
    return float(f"{value:.6g}") if math.isfinite(value) else None


def _rounded(value: float) -> float | None:
    """``_num`` of a Python float (a stage's score)."""
    return float(f"{value:.6g}") if math.isfinite(value) else None


def _plain(value: object) -> object:
    """A setting as JSON: numbers, text, booleans, null and lists of them; anything else as text."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value)
