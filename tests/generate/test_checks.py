from types import MappingProxyType

import pytest

from rag_bench.core.types import Chunk, Question, Span
from rag_bench.generate.base import Answer
from rag_bench.generate.checks import (
    check,
    citations_in_range,
    contains,
    evidence_passages,
    exact_match,
    quotations,
    quotes_supported,
)
from rag_bench.generate.prompt import REFUSAL, build_prompt

TEXT = "The capital of France is Paris.  It is a large\ncity on the Seine."
PASSAGES = (Chunk("a", 0, 31, TEXT[0:31]), Chunk("a", 31, len(TEXT), TEXT[31:]))


def test_citations_in_range():
    assert citations_in_range((1, 2), 2)
    assert citations_in_range((), 2)
    assert not citations_in_range((3,), 2)
    assert not citations_in_range((0,), 2)


def test_quotations_straight_and_curly():
    assert quotations("He said \"a b\" and “c d”, not 'e'.") == ["a b", "c d"]


def test_quote_must_be_verbatim_in_a_cited_passage():
    assert quotes_supported('"is Paris" [1]', (1,), PASSAGES)
    assert quotes_supported('"large city" [2]', (2,), PASSAGES)  # a line break counts as a space
    assert not quotes_supported('"is Paris" [2]', (2,), PASSAGES)  # in passage 1, not the cited one
    assert not quotes_supported('"is paris" [1]', (1,), PASSAGES)  # verbatim: case matters
    assert not quotes_supported('"is Paris"', (), PASSAGES)  # quoted but nothing cited
    assert not quotes_supported('"is Paris" [9]', (9,), PASSAGES)
    assert quotes_supported("no quotes [9]", (9,), PASSAGES)


def test_exact_and_contains_are_normalised():
    assert exact_match("The Paris.", "paris") == 1.0
    assert exact_match("Paris, France", "Paris") == 0.0
    assert contains("It is Paris, France", "paris") == 1.0
    assert contains("Parisian food", "Paris") == 0.0  # whole words only
    assert contains("anything", "") == 0.0


def test_evidence_passages_overlap_tau_times_shorter_length():
    # span [0, 20): passage 1 [0, 31) shares 20 >= 0.5 * 20; passage 2 [31, 66) shares none
    question = Question("q", "?", spans=(Span("a", 0, 20),))
    assert evidence_passages(question, PASSAGES, 0.5) == (1,)
    # span [25, 45): shares 6 chars with passage 1 and 14 with passage 2; 0.5 * 20 = 10
    question = Question("q", "?", spans=(Span("a", 25, 45),))
    assert evidence_passages(question, PASSAGES, 0.5) == (2,)
    assert evidence_passages(question, PASSAGES, 0.3) == (1, 2)  # 6 >= 0.3 * 20
    assert evidence_passages(Question("q", "?", spans=(Span("b", 0, 20),)), PASSAGES, 0.5) == ()


def test_evidence_passages_from_document_judgements():
    question = Question("q", "?", judgements=MappingProxyType({"a": 1, "b": 2}))
    assert evidence_passages(question, (Chunk("b", 0, 3, "xyz"), *PASSAGES), 0.5) == (1, 2, 3)
    question = Question("q", "?", judgements=MappingProxyType({"a": 0}))
    assert evidence_passages(question, PASSAGES, 0.5) == ()


def _check(question, text, passages=PASSAGES):
    return check(build_prompt(question, passages), Answer.from_text(text), tau=0.5, correct_f1=0.5)


def test_check_good_answer():
    question = Question("q", "Capital?", spans=(Span("a", 0, 31),), answer="Paris")
    checks = _check(question, 'It is "Paris" [1].')
    assert checks.evidence_passages == (1,) and not checks.should_refuse
    assert checks.citations_ok and checks.quotes == 1 and checks.quotes_ok and checks.cites_evidence
    # "it is paris" vs "paris": P 1/3, R 1 -> F1 0.5
    assert (checks.exact, checks.contains) == (0.0, 1.0)
    assert checks.f1 == pytest.approx(0.5)
    assert checks.correct and checks.refusal_ok


def test_check_bad_citation_and_wrong_answer():
    question = Question("q", "Capital?", spans=(Span("a", 0, 31),), answer="Paris")
    checks = _check(question, "Lyon [3].")
    assert not checks.citations_ok and not checks.cites_evidence
    assert (checks.exact, checks.f1, checks.contains, checks.correct) == (0.0, 0.0, 0.0, False)


def test_check_refusals():
    answerable = Question("q", "Capital?", spans=(Span("a", 0, 31),), answer="the passages")
    refused = _check(answerable, REFUSAL)
    assert not refused.refusal_ok and not refused.should_refuse
    assert (refused.exact, refused.f1, refused.contains) == (0.0, 0.0, 0.0)  # shares words, scores 0
    missed = Question("q", "Capital?", spans=(Span("b", 0, 5),), answer="Paris")
    assert _check(missed, REFUSAL).refusal_ok  # evidence not in the passages: refusing is right
    assert not _check(missed, "Paris [1]").refusal_ok
    unanswerable = Question("q", "Who wrote Hamlet?")
    checks = _check(unanswerable, REFUSAL)
    assert checks.should_refuse and checks.refusal_ok
    assert (checks.exact, checks.f1, checks.contains, checks.correct) == (None, None, None, None)
