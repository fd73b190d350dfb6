import json

import pytest

from rag_bench.core.errors import DataError
from rag_bench.core.types import Question
from rag_bench.generate.base import Answer
from rag_bench.generate.prompt import REFUSAL, build_prompt
from rag_bench.generate.replay import ReplayGenerator, load_replay


def _write(path, lines):
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_loads_answers_citations_and_refusals(tmp_path):
    path = _write(
        tmp_path / "a.jsonl",
        [
            {"question_id": "q1", "answer": "Paris [1]", "citations": [2, 1, 2]},
            "",
            {"question_id": 7, "answer": "Paris [1][3]"},
            {"question_id": "q3", "answer": REFUSAL},
            {"question_id": "q4", "answer": "I do not know.", "refused": True},
        ],
    )
    assert load_replay(path) == {
        "q1": Answer("Paris [1]", (2, 1), False),  # given citations win, duplicates dropped
        "7": Answer("Paris [1][3]", (1, 3), False),  # parsed from the text
        "q3": Answer(REFUSAL, (), True),
        "q4": Answer("I do not know.", (), True),
    }


@pytest.mark.parametrize(
    ("line", "field", "problem"),
    [
        ("{not json", None, "malformed JSON"),
        ({"answer": "x"}, "question_id", "missing"),
        ({"question_id": "q2", "answer": 3}, "answer", "must be str"),
        ({"question_id": "q2", "answer": "x", "citations": "1"}, "citations", "list of passage numbers"),
        ({"question_id": "q2", "answer": "x", "citations": [1, "2"]}, "citations", "list of passage numbers"),
        ({"question_id": "q2", "answer": "x", "citations": [True]}, "citations", "list of passage numbers"),
        ({"question_id": "q2", "answer": "x", "refused": "yes"}, "refused", "must be bool"),
        ({"question_id": "q2", "answer": "x", "cites": [1]}, "cites", "unknown field"),
        (
            {"question_id": "q1", "answer": "again"},
            "question_id",
            "duplicate answer for question 'q1' (first on line 1)",
        ),
    ],
)
def test_bad_line_names_file_line_and_field(tmp_path, line, field, problem):
    path = _write(tmp_path / "a.jsonl", [{"question_id": "q1", "answer": "x"}, line])
    with pytest.raises(DataError) as info:
        load_replay(path)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 2, field)
    assert problem in info.value.problem
    assert str(info.value).startswith(f"{path}:2: ")


def test_question_without_an_answer_and_missing_file(tmp_path):
    generator = ReplayGenerator(_write(tmp_path / "a.jsonl", [{"question_id": "q1", "answer": "x"}]))
    assert generator.answer(build_prompt(Question("q1", "?"), [])) == Answer("x", (), False)
    with pytest.raises(DataError, match="has no answer for question 'q2'"):
        generator.answer(build_prompt(Question("q2", "?"), []))
    with pytest.raises(DataError, match="cannot be read"):
        ReplayGenerator(tmp_path / "missing.jsonl")


def test_key_follows_the_file_content(tmp_path):
    a = ReplayGenerator(_write(tmp_path / "a.jsonl", [{"question_id": "q1", "answer": "x"}])).key
    b = ReplayGenerator(_write(tmp_path / "b.jsonl", [{"question_id": "q1", "answer": "y"}])).key
    c = ReplayGenerator(_write(tmp_path / "c.jsonl", [{"question_id": "q1", "answer": "x"}])).key
    assert a != b and a == c
