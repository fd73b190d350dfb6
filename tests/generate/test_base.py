from rag_bench.generate.base import Answer, is_refusal, parse_citations, strip_citations
from rag_bench.generate.prompt import REFUSAL


def test_parse_citations_distinct_in_order_of_first_mention():
    assert parse_citations("A [2]. B [1][2]. C [3, 4; 1].") == (2, 1, 3, 4)
    assert parse_citations("no markers, [x] or [ ] or [1.5]") == ()


def test_strip_citations():
    assert strip_citations("Paris [1], France [2, 3].") == "Paris  , France  ."


def test_refusal_is_the_phrase_anywhere_ignoring_case_and_punctuation():
    assert is_refusal(REFUSAL)
    assert is_refusal("the answer is NOT in the passages")
    assert is_refusal(f"Sorry. {REFUSAL}")
    assert not is_refusal("The answer is Paris [1].")


def test_answer_from_text_and_round_trip():
    answer = Answer.from_text("Paris [1] [3]", input_tokens=7, output_tokens=2)
    assert answer == Answer("Paris [1] [3]", (1, 3), False, 7, 2)
    assert Answer.from_dict(answer.to_dict()) == answer
    assert Answer.from_text(REFUSAL).refused
