import pytest

from rag_bench.rewrite.offline import decompose, keywords


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What does KOS-E1107 mean during a rollout?", "KOS-E1107 mean rollout"),
        ("Can a KG-200 be rolled back to 4.2.1-r2?", "KG-200 rolled back 4.2.1-r2"),
        ("How many of them were Meridian Foods’?", "Meridian Foods"),
        ("Is ERR_4021 a billing problem, or isn't it? Billing!", "ERR_4021 billing problem"),  # repeats once
        ("What is it?", ""),
    ],
)
def test_keywords_are_the_content_words_in_order(question, expected):
    assert keywords(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "How long did the INC-2024-Q2-017 outage last, and what KestrelOS change was made?",
            ["How long did the INC-2024-Q2-017 outage last?", "What KestrelOS change was made?"],
        ),
        (
            "How many units failed in INC-2024-Q3-042 and how many of them were Meridian's?",
            ["How many units failed in INC-2024-Q3-042?", "How many of them were Meridian's?"],
        ),
        ("Which version fixed it; when did it ship?", ["Which version fixed it?", "When did it ship?"]),
        ("Who owns billing? Who owns support?", ["Who owns billing?", "Who owns support?"]),
        # "and" not followed by a question word: one question
        ("Did KG-200 units lose data in June and in November?", []),
        # the second part asks nothing of its own ("and why?")
        ("When was KestrelOS 4.2.1-r2 released and why?", []),
    ],
)
def test_decompose_cuts_where_a_second_question_starts(question, expected):
    assert decompose(question) == expected
