"""Why a question missed: one failure class per question at a reference cut-off ``report_k`` (default 10).

Inputs are plain data: the corpus chunks, the questions' labels, and each stage's ranked lists as
(n_questions, depth) chunk indices, -1 padded. A chunk *hits* an evidence span by the relevance
rule (``score/relevance.py``: same document, overlap >= tau * min(len(chunk), len(span)), at least
one character) and *touches* it when they share a character. A question's candidates are the
chunks in any of its lists. Classes, the first that applies:

  unlabelled      no evidence span and no relevant document judgement
  hit             the final top k holds a chunk that hits an evidence span
  lost-by-parser  some of its evidence is an excerpt the parse of its document does not hold (no chunk
                  can hit it): the parser or its cleaning dropped or garbled it
  crowded-out     near-identical chunks (word 3-shingle Jaccard >= 0.9, ``core/shingles.py``) took slots of
                  the final top k: without every chunk near-identical to a higher-ranked one, a hit is within k
  reranked-out    a reranker ran and the list it read held a hit within k; its top k holds none
  diversified-out diversity (mmr, collapse) ran and the list it read held a hit within k; its top k holds none
  expanded-out    an expansion (parent, window, merge) ran and the list it read held a hit within k; the units
                  it returned in its top k hit none (a unit overlapping the evidence less than tau requires)
  fused-out       a first-stage list (bm25, dense) held a hit within its depth, or a step (expand,
                  diversity) returned one below k, and lists were fused; the final top k holds none
  below-k         the same with one index alone (nothing fused): it found the evidence within its depth, below k
  boundary        candidates touch the evidence but none reaches tau: the chunk cut fell through it
  wrong-document  no candidate is a chunk of an evidence document
  not-retrieved   candidates include chunks of an evidence document, none touching the evidence

What to change, by class: lost-by-parser -> the parser or its cleaning (parser=..., parser.repeated);
crowded-out -> diversity=collapse; reranked-out -> the reranker; diversified-out -> diversity's lambda_ or
threshold; expanded-out -> the expansion's level or size; fused-out -> fusion method, weights, k_rrf or k;
below-k -> k, a reranker, or the retriever's ranking (a fusion with another index);
boundary -> chunk size, overlap or the chunker; wrong-document and not-retrieved -> the retrievers
(analyzer, embedder, depth).

Questions judged by documents (no spans) use relevant documents (grade > 0) in place of hits, and
documents in place of chunks: a document ranks where its first chunk ranks, and "within k" counts
documents. They are hit, reranked-out, diversified-out, expanded-out, fused-out or below-k (a first-stage
list holds a relevant document), or wrong-document. The final list's documents are ordered as the metrics
order them (``score/documents.py``: where their first chunks rank, ties as the chunk list broke them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rag_bench.core.shingles import NEAR_IDENTICAL, first_copies, shingles
from rag_bench.core.types import Chunk, Question
from rag_bench.score.documents import document_run
from rag_bench.score.relevance import ChunkLocator, touching

UNLABELLED, HIT, LOST = "unlabelled", "hit", "lost-by-parser"
MISSES = (
    LOST,
    "crowded-out",
    "reranked-out",
    "diversified-out",
    "expanded-out",
    "fused-out",
    "below-k",
    "boundary",
    "wrong-document",
    "not-retrieved",
)
STEP_CLASSES = {"diversified": "diversified-out", "expanded": "expanded-out"}  # a post-retrieval step's class
CLASSES = (UNLABELLED, HIT, *MISSES)  # precedence order
REPORT_K = 10


@dataclass(frozen=True)
class StageLists:
    """Every stage's ranked lists: (n_questions, depth) int chunk indices, best first, -1 padded."""

    first: Mapping[str, np.ndarray]  # first-stage lists by index name ("bm25", "dense"), in fusion order
    fused: np.ndarray  # after fusion; the only first-stage list when nothing was fused
    reranked: np.ndarray | None = None  # after the reranker; None when none ran
    final_scores: np.ndarray | None = None  # scores of the final list, for the metrics' document order
    steps: Mapping[str, np.ndarray] = field(default_factory=dict)  # after each post-retrieval step, in order

    @property
    def retrieved(self) -> np.ndarray:
        """The list the reranker read: the last step's, else the fused one."""
        return list(self.steps.values())[-1] if self.steps else self.fused

    @property
    def final(self) -> np.ndarray:
        return self.retrieved if self.reranked is None else self.reranked

    def step_inputs(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """(name, the list it read, its list) of each post-retrieval step, the last first."""
        inputs = [self.fused, *self.steps.values()]
        return [(name, inputs[i], lists) for i, (name, lists) in reversed(list(enumerate(self.steps.items())))]

    def first_stage(self) -> dict[str, np.ndarray]:
        """The first-stage lists; the fused list itself when none were given (an external retriever)."""
        return dict(self.first) if self.first else {"fused": self.fused}

    def named(self) -> dict[str, np.ndarray]:
        """Every distinct list by stage name: first-stage lists, ``fused`` when lists were fused, ``reranked``."""
        lists = self.first_stage()
        if len(self.first) > 1:
            lists["fused"] = self.fused
        lists.update(self.steps)
        if self.reranked is not None:
            lists["reranked"] = self.reranked
        return lists


@dataclass(frozen=True)
class Diagnosis:
    """A question's failure class and, per stage, the rank (from 1) of its evidence (None when absent)."""

    failure: str
    ranks: Mapping[str, int | None]


def diagnose(
    chunks: Sequence[Chunk],
    questions: Sequence[Question],
    stages: StageLists,
    tau: float,
    report_k: int = REPORT_K,
    touched: Sequence[dict[int, frozenset[int]] | None] | None = None,
) -> list[Diagnosis]:
    """One Diagnosis per question (definitions in the module docstring).

    ``touched``: each question's ``relevance.touching(chunks, its spans, tau)`` when the caller has them (the
    evaluation's ``touching``); matched here otherwise."""
    if report_k < 1:
        raise ValueError(f"report_k ({report_k}) must be at least 1")
    locator = ChunkLocator(chunks)
    doc_of = [c.doc_id for c in chunks]
    judged = any(q.labelled and not q.spans for q in questions)
    final_docs = _final_documents(stages, doc_of, report_k) if judged else None
    named = stages.named()
    memo: dict[int, np.ndarray] = {}  # chunk index -> its shingles, for the crowded-out test
    out = []
    for q, question in enumerate(questions):
        rows = {name: _valid(lists[q]) for name, lists in named.items()}
        if question.has_evidence:
            near = touched[q] if touched is not None else touching(locator, question.spans, tau)
            # near: chunk -> spans it hits (empty: touches only)
            out.append(_by_spans(question, q, rows, stages, near, doc_of, report_k, (chunks, memo)))
        elif question.labelled:
            out.append(_by_documents(question, q, rows, stages, doc_of, final_docs[q], report_k))
        else:
            out.append(Diagnosis(UNLABELLED, dict.fromkeys(rows)))
    return out


def _by_spans(question, q, rows, stages, touched, doc_of, k, texts) -> Diagnosis:
    hitting = {c for c, spans in touched.items() if spans}
    ranks = {name: _rank(row, hitting) for name, row in rows.items()}
    final = _valid(stages.final[q])
    if _within(_rank(final, hitting), k):
        return Diagnosis(HIT, ranks)
    if question.lost:
        return Diagnosis(LOST, ranks)
    if _within(_rank(_without_copies(final, *texts), hitting), k):
        return Diagnosis("crowded-out", ranks)
    if stages.reranked is not None and _within(_rank(_valid(stages.retrieved[q]), hitting), k):
        return Diagnosis("reranked-out", ranks)
    for name, before, _ in stages.step_inputs():
        if _within(_rank(_valid(before[q]), hitting), k):
            return Diagnosis(STEP_CLASSES[name], ranks)
    searched = [*stages.first_stage().values(), *stages.steps.values()]  # a step's units may hit where chunks did not
    if any(_rank(_valid(lists[q]), hitting) is not None for lists in searched):
        return Diagnosis(_found_below(stages), ranks)
    candidates = set().union(*(row.tolist() for row in rows.values()))
    if candidates & touched.keys():
        return Diagnosis("boundary", ranks)
    evidence_docs = {span.doc_id for span in question.spans}
    if not any(doc_of[c] in evidence_docs for c in candidates):
        return Diagnosis("wrong-document", ranks)
    return Diagnosis("not-retrieved", ranks)


def _by_documents(question, q, rows, stages, doc_of, final_docs, k) -> Diagnosis:
    relevant = {d for d, grade in question.judgements.items() if grade > 0}
    ranks = {name: _rank(_documents(row, doc_of), relevant) for name, row in rows.items()}
    if relevant & set(final_docs):
        return Diagnosis(HIT, ranks)
    if stages.reranked is not None and relevant & set(_documents(_valid(stages.retrieved[q]), doc_of)[:k]):
        return Diagnosis("reranked-out", ranks)
    for name, before, _ in stages.step_inputs():
        if relevant & set(_documents(_valid(before[q]), doc_of)[:k]):
            return Diagnosis(STEP_CLASSES[name], ranks)
    if any(relevant & {doc_of[c] for c in _valid(lists[q])} for lists in stages.first_stage().values()):
        return Diagnosis(_found_below(stages), ranks)
    return Diagnosis("wrong-document", ranks)


def _without_copies(row: np.ndarray, chunks: Sequence[Chunk], memo: dict[int, np.ndarray]) -> np.ndarray:
    """``row`` without each chunk near-identical to a higher-ranked one (what diversity=collapse returns)."""
    sets = [memo[c] if c in memo else memo.setdefault(c, shingles(chunks[c].text)) for c in row.tolist()]
    copies = first_copies(sets, NEAR_IDENTICAL)
    return row[copies < 0]


def _found_below(stages: StageLists) -> str:
    """The class of evidence a first-stage list found that the final top k lost: fused out when lists were
    fused, else below k (one index alone, nothing fused)."""
    return "fused-out" if len(stages.first) > 1 else "below-k"


def _final_documents(stages: StageLists, doc_of: list[str], k: int) -> list[list[str]]:
    """Each question's top k documents of the final list, in the metrics' order when scores are given."""
    if stages.final_scores is None:
        return [_documents(_valid(row), doc_of)[:k] for row in stages.final]
    run = document_run(stages.final, stages.final_scores, doc_of)
    return [[run.doc_ids[d] for d in row[:k] if d >= 0] for row in run.ranked]


def _documents(row: np.ndarray, doc_of: list[str]) -> list[str]:
    """The distinct documents of a chunk list, each where its first chunk ranks."""
    return list(dict.fromkeys(doc_of[c] for c in row))


def _valid(row: np.ndarray) -> np.ndarray:
    return row[row >= 0]


def _rank(items, wanted: set) -> int | None:
    """Rank (from 1) of the first item in ``wanted``, None when there is none."""
    return next((rank for rank, item in enumerate(items, start=1) if item in wanted), None)


def _within(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def failure_counts(failures: Sequence[str], categories: Sequence[str | None]) -> dict[str, dict[str, int]]:
    """Category -> class -> count, with every class (zeros included) and an ``all`` row first."""
    rows = {"all": Counter(failures)}
    for failure, category in zip(failures, categories, strict=True):
        rows.setdefault(category or "(none)", Counter())[failure] += 1
    return {name: {c: int(counts[c]) for c in CLASSES} for name, counts in rows.items()}
