from pathlib import Path

import pytest

from rag_bench.core.errors import DataError
from rag_bench.importers.common import Imported, write_native
from rag_bench.importers.trec import add_judgements, read_trec_qrels, read_trec_run


def _file(tmp_path: Path, text: str, name: str = "file.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _dataset(tmp_path: Path):
    documents = [{"id": "d1", "text": "one"}, {"id": "d2", "text": "two"}, {"id": "d3", "text": "three"}]
    questions = [
        {"id": "q1", "question": "first?", "judgements": {"d1": 1}},
        {"id": "q2", "question": "second?", "evidence": [{"doc_id": "d2", "start": 0, "end": 3}], "category": "c"},
    ]
    return write_native(Imported(documents, questions), tmp_path / "base")


def test_qrels_keep_grades_including_zero(tmp_path):
    path = _file(tmp_path, "q1 0 d1 2\nq1 0 d2 0\n\nq2 1 d1 1\n")
    assert read_trec_qrels(path) == {"q1": {"d1": 2, "d2": 0}, "q2": {"d1": 1}}


def test_run_is_ordered_as_trec_eval_sorts_it(tmp_path):
    # trec_eval ignores the rank column: score descending, then docid descending
    text = "q1 Q0 d1 1 0.5 tag\nq1 Q0 d10 2 0.5 tag\nq1 Q0 d9 3 0.5 tag\nq1 Q0 d2 4 0.7 tag\nq2 Q0 x 1 -1e3 tag\n"
    run = read_trec_run(_file(tmp_path, text))
    assert run == {"q1": [("d2", 0.7), ("d9", 0.5), ("d10", 0.5), ("d1", 0.5)], "q2": [("x", -1000.0)]}


@pytest.mark.parametrize(
    ("text", "line", "field", "problem"),
    [
        ("q1 Q0 d1 1 0.5 tag\nq1 Q0 d1 2\n", 2, None, "has 4 fields, expected 6"),
        ("q1 Q0 d1 1 high tag\n", 1, "score", "'high' is not a number"),
        ("q1 Q0 d1 1 nan tag\n", 1, "score", "'nan' is not a number"),
        ("q1 Q0 d1 first 0.5 tag\n", 1, "rank", "'first' is not an integer"),
        ("q1 Q0 d1 1 0.5 tag\nq1 Q0 d1 2 0.4 tag\n", 2, "docid", "lists 'd1' twice for 'q1'"),
    ],
)
def test_bad_run_files(tmp_path, text, line, field, problem):
    with pytest.raises(DataError, match="run.txt") as caught:
        read_trec_run(_file(tmp_path, text, "run.txt"))
    assert (caught.value.line, caught.value.field) == (line, field)
    assert problem in caught.value.problem


@pytest.mark.parametrize(
    ("text", "line", "field", "problem"),
    [
        ("q1 0 d1\n", 1, None, "has 3 fields, expected 4"),
        ("q1 0 d1 1.5\n", 1, "grade", "'1.5' is not an integer"),
        ("q1 0 d1 1\nq1 0 d1 2\n", 2, None, "judges 'd1' for 'q1' again (first on line 1)"),
        ("q1 0 d7 1\n", 1, "docid", "unknown document id 'd7'"),
    ],
)
def test_bad_qrels(tmp_path, text, line, field, problem):
    with pytest.raises(DataError, match="qrels.txt") as caught:
        read_trec_qrels(_file(tmp_path, text, "qrels.txt"), {"d1", "d2"})
    assert (caught.value.line, caught.value.field) == (line, field)
    assert problem in caught.value.problem


def test_qrels_add_judgements_to_an_existing_dataset(tmp_path):
    base = _dataset(tmp_path)
    qrels = _file(tmp_path, "q1 0 d1 3\nq1 0 d3 0\nq2 0 d3 2\nq99 0 d2 1\n")
    imported = add_judgements(base, qrels)
    assert imported.notes == ("skipped the judgements of 1 qids that are not questions of the dataset",)
    dataset = write_native(imported, tmp_path / "out")
    q1, q2 = dataset.questions
    assert dict(q1.judgements) == {"d1": 3, "d3": 0}  # the qrels grade replaces the old one
    assert dict(q2.judgements) == {"d3": 2}
    assert (q2.spans, q2.category) == (base.questions[1].spans, "c")  # spans and fields kept
    assert [d.id for d in dataset.documents] == ["d1", "d2", "d3"]


def test_qrels_for_other_questions_are_refused(tmp_path):
    with pytest.raises(DataError, match="judges none of the dataset's questions"):
        add_judgements(_dataset(tmp_path), _file(tmp_path, "x1 0 d1 1\n"))
