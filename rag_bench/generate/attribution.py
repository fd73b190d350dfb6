"""Pass or fail per question, and which stage a failure belongs to.

An answerable question (it has labels) passes when some passage holds evidence and the
answer is not a refusal, cites at least one passage, every citation is in range, every
quotation is found in a cited passage, and it matches the reference answer (when there is
one). An unanswerable question passes when the answer refuses. A failure is attributed to
  retrieval   no passage holds evidence (whatever the model then did: refusing is the
              right move, an answer is ungrounded even when its words match);
  refusal     evidence was given and the model refused;
  generation  evidence was given and the answer is wrong or unsupported, or the
              question is unanswerable and the model answered anyway.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from rag_bench.core.types import Question
from rag_bench.generate.base import Answer
from rag_bench.generate.checks import Checks

RETRIEVAL, GENERATION, REFUSAL = "retrieval", "generation", "refusal"
LABELS = (RETRIEVAL, GENERATION, REFUSAL)


@dataclass(frozen=True)
class Outcome:
    passed: bool
    attribution: str | None  # one of LABELS when failed
    problem: str  # what went wrong, "" when passed


def problems(answer: Answer, checks: Checks) -> list[str]:
    """What is wrong with an answer to an answerable question (empty when it passes)."""
    if answer.refused:
        return ["refused"]
    found = []
    if not answer.citations:
        found.append("no citation")
    if not checks.citations_ok:
        found.append("citation out of range")
    if not checks.quotes_ok:
        found.append("quotation not in a cited passage")
    if checks.correct is False:
        found.append("answer does not match the reference")
    return found


def attribute(question: Question, answer: Answer, checks: Checks) -> Outcome:
    """The outcome of one question (see the module docstring)."""
    if not question.labelled:
        if answer.refused:
            return Outcome(True, None, "")
        return Outcome(False, GENERATION, "answered an unanswerable question")
    found = problems(answer, checks)
    if not checks.evidence_given:
        return Outcome(False, RETRIEVAL, "; ".join(["evidence not retrieved", *(found or ["answered without it"])]))
    if not found:
        return Outcome(True, None, "")
    return Outcome(False, REFUSAL if answer.refused else GENERATION, "; ".join(found))


def count(outcomes: Iterable[Outcome]) -> dict[str, int]:
    """Failures per label, every label present: ``{"retrieval": 3, "generation": 1, "refusal": 0}``."""
    tally = Counter(o.attribution for o in outcomes if not o.passed)
    return {label: tally.get(label, 0) for label in LABELS}
