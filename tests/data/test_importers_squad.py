import copy
import json
from pathlib import Path

import pytest

from rag_bench.core.errors import DataError
from rag_bench.importers.common import write_native
from rag_bench.importers.squad import read_squad

CONTEXT = "Denver won Super Bowl 50. The game was in Santa Clara."
OTHER = "Paris is the capital of France."

SQUAD = {
    "version": "v2.0",
    "data": [
        {
            "title": "Super_Bowl_50",
            "paragraphs": [
                {
                    "context": CONTEXT,
                    "qas": [
                        {
                            "id": "a1",
                            "question": "Who won?",
                            "is_impossible": False,
                            "answers": [
                                {"text": "Denver", "answer_start": 0},
                                {"text": "Denver", "answer_start": 0},
                                {"text": "Santa Clara", "answer_start": 42},
                            ],
                        },
                        {
                            "id": "a2",
                            "question": "Who lost?",
                            "is_impossible": True,
                            "answers": [],
                            "plausible_answers": [{"text": "Denver", "answer_start": 0}],
                        },
                    ],
                },
                {
                    "context": OTHER,
                    "qas": [{"id": "a3", "question": "Capital?", "answers": [{"text": "Paris", "answer_start": 0}]}],
                },
            ],
        },
        {
            "title": "Repeat",
            "paragraphs": [
                {
                    "context": CONTEXT,
                    "qas": [
                        {"id": "b1", "question": "Where?", "answers": [{"text": "Santa Clara", "answer_start": 42}]}
                    ],
                }
            ],
        },
    ],
}


def _file(tmp_path: Path, data: dict | str) -> Path:
    path = tmp_path / "squad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")
    return path


def test_contexts_become_documents_once_answers_become_spans(tmp_path):
    dataset = write_native(read_squad(_file(tmp_path, SQUAD)), tmp_path / "out")
    assert [(d.id, d.title, d.text) for d in dataset.documents] == [
        ("Super_Bowl_50-0", "Super Bowl 50", CONTEXT),
        ("Super_Bowl_50-1", "Super Bowl 50", OTHER),
    ]  # the repeated context of "Repeat" is the first document again
    a1, a2, a3, b1 = dataset.questions
    assert [(s.doc_id, s.start, s.end) for s in a1.spans] == [("Super_Bowl_50-0", 0, 6), ("Super_Bowl_50-0", 42, 53)]
    assert a1.answer == "Denver"
    assert (a2.spans, a2.answer, a2.labelled) == ((), None, False)  # unanswerable, kept
    assert [(s.doc_id, s.start, s.end) for s in a3.spans] == [("Super_Bowl_50-1", 0, 5)]
    assert [(s.doc_id, s.start, s.end) for s in b1.spans] == [("Super_Bowl_50-0", 42, 53)]


def test_same_title_twice_gets_distinct_document_ids(tmp_path):
    data = copy.deepcopy(SQUAD)
    data["data"][1]["title"] = "Super_Bowl_50"
    data["data"][1]["paragraphs"][0]["context"] = "Another text."
    data["data"][1]["paragraphs"][0]["qas"][0]["answers"] = [{"text": "text", "answer_start": 8}]
    imported = read_squad(_file(tmp_path, data))
    assert [d["id"] for d in imported.documents] == ["Super_Bowl_50-0", "Super_Bowl_50-1", "Super_Bowl_50-0.2"]


def _broken(edit) -> dict:
    data = copy.deepcopy(SQUAD)
    edit(data)
    return data


@pytest.mark.parametrize(
    ("data", "field", "problem"),
    [
        (
            _broken(lambda d: d["data"][0]["paragraphs"][0]["qas"][0]["answers"][2].update(answer_start=41)),
            "data[0].paragraphs[0].qas[0].answers[2]",
            "answer 'Santa Clara' is not at answer_start 41",
        ),
        (_broken(lambda d: d["data"][0]["paragraphs"][1].pop("context")), "data[0].paragraphs[1].context", "missing"),
        (
            _broken(lambda d: d["data"][1]["paragraphs"][0]["qas"][0].update(id="a1")),
            "data[1].paragraphs[0].qas[0].id",
            "duplicate question id 'a1'",
        ),
        (
            _broken(lambda d: d["data"][0]["paragraphs"][1]["qas"][0].update(answers=[])),
            "data[0].paragraphs[1].qas[0].answers",
            "is empty",
        ),
        (
            _broken(lambda d: d["data"][0]["paragraphs"][1]["qas"][0].update(question=7)),
            "data[0].paragraphs[1].qas[0].question",
            "must be str, got int",
        ),
        ({"version": "1.1"}, "data", "missing"),
    ],
)
def test_bad_structure_names_the_json_path(tmp_path, data, field, problem):
    with pytest.raises(DataError, match="squad.json") as caught:
        read_squad(_file(tmp_path, data))
    assert caught.value.field == field
    assert problem in caught.value.problem


def test_malformed_json_names_the_line(tmp_path):
    with pytest.raises(DataError, match=r"squad.json:3: malformed JSON") as caught:
        read_squad(_file(tmp_path, '{"data": [\n  {"title": "x",\n   "paragraphs": [}\n]}'))
    assert caught.value.fix
