import json
from pathlib import Path

import pytest

from rag_bench.core.errors import DataError
from rag_bench.data.native import load_dataset

DOC = "Alpha beta gamma. Delta epsilon.\nZeta eta theta zeta."


def make(tmp_path: Path, questions: list, documents: list | None = None) -> Path:
    documents = documents if documents is not None else [{"id": "d1", "text": DOC, "title": "One"}]
    (tmp_path / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents))
    lines = [q if isinstance(q, str) else json.dumps(q) for q in questions]
    (tmp_path / "questions.jsonl").write_text("".join(line + "\n" for line in lines))
    return tmp_path


def error(tmp_path, questions, documents=None) -> str:
    with pytest.raises(DataError) as info:
        load_dataset(make(tmp_path, questions, documents))
    return str(info.value)


def test_loads_offsets_excerpts_and_unanswerable(tmp_path):
    ds = load_dataset(
        make(
            tmp_path,
            [
                {
                    "id": "q1",
                    "question": "?",
                    "evidence": [{"doc_id": "d1", "start": 0, "end": 5}],
                    "category": "x",
                },
                {
                    "id": "q2",
                    "question": "?",
                    "evidence": [{"doc_id": "d1", "text": "Delta epsilon."}],
                    "answer": "a",
                },
                {"id": "q3", "question": "?", "evidence": []},
            ],
        )
    )
    assert [q.id for q in ds.questions] == ["q1", "q2", "q3"]
    assert ds.questions[0].spans[0].end == 5
    span = ds.questions[1].spans[0]
    assert (span.start, span.end) == (18, 32) and DOC[span.start : span.end] == "Delta epsilon."
    assert not ds.questions[2].labelled
    assert ds.documents[0].title == "One"


def test_docs_folder_ids_are_relative_paths_and_title_is_first_heading(tmp_path):
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "sub" / "a.md").write_text("intro\n# The Title\nbody")
    (tmp_path / "docs" / "b.txt").write_text("# not a title in txt")
    (tmp_path / "questions.jsonl").write_text(
        json.dumps({"id": 1, "question": "?", "evidence": [{"doc_id": "sub/a.md", "text": "body"}]}) + "\n"
    )
    ds = load_dataset(tmp_path)
    assert [d.id for d in ds.documents] == ["b.txt", "sub/a.md"]
    assert [d.title for d in ds.documents] == [None, "The Title"]
    assert ds.questions[0].id == "1"


def test_malformed_json_names_file_and_line(tmp_path):
    message = error(tmp_path, [{"id": "q1", "question": "?"}, '{"id": "q2", "question": '])
    assert "questions.jsonl:2:" in message and "malformed JSON" in message


def test_duplicate_question_id(tmp_path):
    message = error(tmp_path, [{"id": "q1", "question": "?"}, {"id": "q1", "question": "?"}])
    assert "questions.jsonl:2: id: duplicate id 'q1' (first on line 1)" in message


def test_duplicate_document_id(tmp_path):
    message = error(tmp_path, [{"id": "q", "question": "?"}], [{"id": "d", "text": "x"}, {"id": "d", "text": "y"}])
    assert "documents.jsonl:2: id: duplicate id 'd'" in message


def test_span_outside_document(tmp_path):
    message = error(tmp_path, [{"id": "q", "question": "?", "evidence": [{"doc_id": "d1", "start": 40, "end": 99}]}])
    assert "questions.jsonl:1: evidence[0]: span [40, 99) lies outside document 'd1' (53 characters)" in message
    assert "fix:" in message


def test_unknown_document_id(tmp_path):
    message = error(tmp_path, [{"id": "q", "question": "?", "evidence": [{"doc_id": "nope", "start": 0, "end": 1}]}])
    assert "evidence[0].doc_id: unknown document id 'nope'" in message


def test_excerpt_not_found(tmp_path):
    message = error(tmp_path, [{"id": "q", "question": "?", "evidence": [{"doc_id": "d1", "text": "omega"}]}])
    assert "evidence[0].text: excerpt 'omega' not found in document 'd1'" in message


def test_excerpt_found_twice(tmp_path):
    message = error(tmp_path, [{"id": "q", "question": "?", "evidence": [{"doc_id": "d1", "text": "eta"}]}])
    assert "occurs more than once" in message and "lengthen the excerpt" in message


def test_unknown_field_is_a_typo_not_silence(tmp_path):
    message = error(tmp_path, [{"id": "q", "question": "?", "evidance": []}])
    assert "field 'evidance'" in message and "allowed fields are" in message


def test_missing_question_text(tmp_path):
    assert "questions.jsonl:1: question: missing" in error(tmp_path, [{"id": "q"}])


def test_bundled_annual_report_loads():
    from rag_bench.data.bundled import dataset_folder

    ds = load_dataset(dataset_folder("annual-report", None))
    assert len(ds.questions) >= 25
    assert {q.category for q in ds.questions} >= {"identifier", "paraphrase", "ambiguous", "multi-evidence"}
