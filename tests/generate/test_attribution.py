from rag_bench.core.types import Chunk, Question, Span
from rag_bench.generate.attribution import Outcome, attribute, count
from rag_bench.generate.base import Answer
from rag_bench.generate.checks import check
from rag_bench.generate.prompt import REFUSAL, build_prompt

PASSAGES = (Chunk("a", 0, 31, "The capital of France is Paris."), Chunk("b", 0, 19, "Bananas are yellow."))
FOUND = Question("q", "Capital of France?", spans=(Span("a", 0, 31),), answer="Paris")
MISSED = Question("q", "Capital of Spain?", spans=(Span("c", 0, 10),), answer="Madrid")
NO_REFERENCE = Question("q", "Capital of France?", spans=(Span("a", 0, 31),))
UNANSWERABLE = Question("q", "Who wrote Hamlet?")


def _outcome(question, text):
    answer = Answer.from_text(text)
    return attribute(question, answer, check(build_prompt(question, PASSAGES), answer, 0.5, 0.5))


def test_correct_cited_answer_passes():
    assert _outcome(FOUND, "Paris [1]") == Outcome(True, None, "")
    assert _outcome(NO_REFERENCE, "Paris [1]") == Outcome(True, None, "")  # no reference: support only


def test_evidence_given_failures_are_generation_or_refusal():
    assert _outcome(FOUND, "Lyon [1]") == Outcome(False, "generation", "answer does not match the reference")
    assert _outcome(FOUND, "Paris") == Outcome(False, "generation", "no citation")
    assert _outcome(FOUND, "Paris [3]") == Outcome(False, "generation", "citation out of range")
    assert _outcome(FOUND, '"Paris is big" [1]') == Outcome(False, "generation", "quotation not in a cited passage")
    assert _outcome(FOUND, '"Lyon is big" [1]') == Outcome(
        False, "generation", "quotation not in a cited passage; answer does not match the reference"
    )
    assert _outcome(FOUND, REFUSAL) == Outcome(False, "refusal", "refused")


def test_missing_evidence_is_retrieval_whatever_the_model_did():
    assert _outcome(MISSED, REFUSAL) == Outcome(False, "retrieval", "evidence not retrieved; refused")
    assert _outcome(MISSED, "Paris [1]") == Outcome(
        False, "retrieval", "evidence not retrieved; answer does not match the reference"
    )
    # right words, but no passage holds the evidence: ungrounded, and retrieval's fault
    assert _outcome(MISSED, "Madrid [2]") == Outcome(False, "retrieval", "evidence not retrieved; answered without it")


def test_unanswerable_must_refuse():
    assert _outcome(UNANSWERABLE, REFUSAL) == Outcome(True, None, "")
    assert _outcome(UNANSWERABLE, "Shakespeare [1]") == Outcome(
        False, "generation", "answered an unanswerable question"
    )


def test_count_has_every_label():
    outcomes = [
        Outcome(True, None, ""),
        Outcome(False, "retrieval", "x"),
        Outcome(False, "retrieval", "y"),
        Outcome(False, "refusal", "z"),
    ]
    assert count(outcomes) == {"retrieval": 2, "generation": 0, "refusal": 1}
    assert count([]) == {"retrieval": 0, "generation": 0, "refusal": 0}
