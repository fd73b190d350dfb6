"""The optional ``language`` of documents and questions, and the bundled multilingual set."""

import json
from collections import Counter

import pytest

from rag_bench.core.errors import DataError
from rag_bench.data.bundled import dataset_folder
from rag_bench.data.languages import language_code
from rag_bench.data.native import load_dataset


def make(tmp_path, doc_language, question_language):
    doc = {"id": "a", "text": "Die Rechnung ist fällig."}
    question = {"id": "q", "question": "Wann?", "evidence": [{"doc_id": "a", "text": "fällig"}]}
    if doc_language is not None:
        doc["language"] = doc_language
    if question_language is not None:
        question["language"] = question_language
    (tmp_path / "documents.jsonl").write_text(json.dumps(doc) + "\n", encoding="utf-8")
    (tmp_path / "questions.jsonl").write_text(json.dumps(question) + "\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("value", "code"),
    [("de", "de"), ("DE", "de"), ("pt-BR", "pt"), ("zh_Hans", "zh"), ("nb", "nb"), ("German", "de"), ("xx", None)],
)
def test_language_codes(value, code):
    assert language_code(value) == code


def test_documents_and_questions_carry_their_language(tmp_path):
    data = load_dataset(make(tmp_path, "de-AT", "en"))
    assert data.documents[0].language == "de" and data.questions[0].language == "en"
    plain = load_dataset(make(tmp_path, None, None))
    assert plain.documents[0].language is None and plain.questions[0].language is None


@pytest.mark.parametrize(
    ("doc", "question", "where"),
    [("klingon", None, "documents.jsonl:1: language:"), (None, 7, "questions.jsonl:1: language:")],
)
def test_an_unknown_language_names_the_file_line_and_field(tmp_path, doc, question, where):
    with pytest.raises(DataError) as info:
        load_dataset(make(tmp_path, doc, question))
    message = str(info.value)
    assert where in message and "unknown language" in message and "write an ISO 639-1 code" in message


def test_the_bundled_multilingual_set():
    data = load_dataset(dataset_folder("multilingual", None))
    documents = {d.id: d for d in data.documents}
    assert Counter(d.language for d in data.documents) == {"en": 2, "de": 3, "fr": 2, "ja": 3, "zh": 2}
    assert len(data.questions) >= 60 and all(q.spans and q.language and q.answer for q in data.questions)
    cross = [q for q in data.questions if any(documents[s.doc_id].language != q.language for s in q.spans)]
    assert len(cross) == 12
    same = Counter(q.language for q in data.questions if q not in cross)
    assert same == {"en": 9, "de": 15, "fr": 11, "ja": 14, "zh": 8}
