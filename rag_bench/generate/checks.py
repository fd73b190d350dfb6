"""Checks of one answer against its prompt's passages and the question's labels.

- citations_ok: every cited number names a passage of the prompt (1..n).
- quotes_ok: every text in double quotation marks ("..." or “...”) appears verbatim
  (whitespace runs collapsed) in at least one cited passage.
- exact / f1 / contains: the answer, citation markers removed, against the reference
  answer: normalised exact match, SQuAD token F1, normalised reference inside the answer
  (all 0 for a refusal); correct when any of exact, contains or F1 >= ``correct_f1``.
- refusal_ok: refused exactly when it should: the question is unanswerable (no labels),
  or none of the passages holds evidence. A passage holds evidence when its chunk hits an
  evidence span (overlap >= tau * min(len(chunk), len(span)), ``score.relevance``) or, for
  judgement labels, comes from a relevant document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_bench.core.types import Chunk, Question
from rag_bench.generate.base import Answer, strip_citations
from rag_bench.generate.prompt import Prompt
from rag_bench.generate.text import normalise, token_f1
from rag_bench.score.relevance import ChunkLocator, touching

_QUOTE = re.compile(r'"([^"]+)"|“([^”]+)”')


@dataclass(frozen=True)
class Checks:
    """Every check of one answer; the answer-match values are None without a reference answer."""

    evidence_passages: tuple[int, ...]  # numbers of the passages that hold evidence
    should_refuse: bool
    citations_ok: bool
    quotes: int
    quotes_ok: bool
    cites_evidence: bool  # some cited passage holds evidence
    exact: float | None
    f1: float | None
    contains: float | None
    correct: bool | None
    refusal_ok: bool

    @property
    def evidence_given(self) -> bool:
        return bool(self.evidence_passages)


def evidence_passages(question: Question, passages: Sequence[Chunk], tau: float) -> tuple[int, ...]:
    """Numbers (from 1) of the passages that hold evidence for ``question``."""
    if question.spans:
        hits = touching(ChunkLocator(passages), question.spans, tau)
        return tuple(sorted(c + 1 for c, spans in hits.items() if spans))
    relevant = {doc for doc, grade in question.judgements.items() if grade > 0}
    return tuple(n for n, chunk in enumerate(passages, start=1) if chunk.doc_id in relevant)


def citations_in_range(citations: Sequence[int], n_passages: int) -> bool:
    return all(1 <= n <= n_passages for n in citations)


def quotations(text: str) -> list[str]:
    """Texts in double quotation marks, straight or curly."""
    return [m.group(1) or m.group(2) for m in _QUOTE.finditer(text)]


def quotes_supported(text: str, citations: Sequence[int], passages: Sequence[Chunk]) -> bool:
    """Every quotation of ``text`` appears verbatim in at least one cited passage."""
    cited = [_squash(passages[n - 1].text) for n in citations if 1 <= n <= len(passages)]
    return all(any(_squash(q) in p for p in cited) for q in quotations(text))


def exact_match(answer: str, reference: str) -> float:
    return float(normalise(answer) == normalise(reference))


def contains(answer: str, reference: str) -> float:
    """1.0 when the normalised reference occurs, as whole words, in the normalised answer."""
    want = normalise(reference)
    return float(bool(want) and f" {want} " in f" {normalise(answer)} ")


def check(prompt: Prompt, answer: Answer, tau: float, correct_f1: float) -> Checks:
    """All checks of ``answer`` to ``prompt``."""
    question, passages = prompt.question, prompt.passages
    evidence = evidence_passages(question, passages, tau)
    should_refuse = not question.labelled or not evidence
    text = strip_citations(answer.text)
    reference = question.answer
    if not reference:
        scores = None
    elif answer.refused:  # a refusal answers nothing, whatever words it shares with the reference
        scores = (0.0, 0.0, 0.0)
    else:
        scores = (exact_match(text, reference), token_f1(text, reference), contains(text, reference))
    return Checks(
        evidence_passages=evidence,
        should_refuse=should_refuse,
        citations_ok=citations_in_range(answer.citations, len(passages)),
        quotes=len(quotations(answer.text)),
        quotes_ok=quotes_supported(answer.text, answer.citations, passages),
        cites_evidence=bool(set(answer.citations) & set(evidence)),
        exact=scores[0] if scores else None,
        f1=scores[1] if scores else None,
        contains=scores[2] if scores else None,
        correct=bool(scores[0] or scores[2] or scores[1] >= correct_f1) if scores else None,
        refusal_ok=answer.refused == should_refuse,
    )


def _squash(text: str) -> str:
    return " ".join(text.split())
