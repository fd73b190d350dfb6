"""Document metadata from metadata.jsonl, and the checks of a question's filter at load time."""

import json

import pytest

from rag_bench.core.errors import DataError
from rag_bench.data.native import load_dataset


def _dataset(tmp_path, questions, metadata=None, docs=None):
    (tmp_path / "docs").mkdir()
    for name, text in (docs or {"a.md": "# A\nalpha text about gateways", "b.md": "# B\nbeta text about pay"}).items():
        (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    if metadata is not None:
        (tmp_path / "metadata.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metadata), encoding="utf-8")
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return tmp_path


META = [{"id": "a.md", "metadata": {"acl": ["all"], "year": 2024}}, {"id": "b.md", "metadata": {"acl": ["hr"]}}]


def _question(flt, doc="a.md", text="alpha text"):
    return {"id": "q1", "question": "?", "evidence": [{"doc_id": doc, "text": text}], "filter": flt}


def test_sidecar_metadata_reaches_documents_and_filters_parse(tmp_path):
    ds = load_dataset(_dataset(tmp_path, [_question({"acl": {"$in": ["all", "eng"]}})], META))
    assert {d.id: dict(d.metadata) for d in ds.documents} == {"a.md": META[0]["metadata"], "b.md": {"acl": ["hr"]}}
    assert ds.questions[0].filter.matches(ds.documents[0].metadata)
    assert not ds.questions[0].filter.matches(ds.documents[1].metadata)


@pytest.mark.parametrize(
    ("metadata", "line", "field", "problem"),
    [
        ([{"id": "c.md", "metadata": {}}], 1, "id", "unknown document id 'c.md'"),
        ([META[0], {"id": "a.md", "metadata": {}}], 2, "id", "duplicate id 'a.md' (first on line 1)"),
        ([{"id": "a.md", "metadata": []}], 1, "metadata", "must be dict"),
        ([{"id": "a.md", "meta": {}}], 1, "meta", "unknown field"),
    ],
)
def test_sidecar_errors(tmp_path, metadata, line, field, problem):
    with pytest.raises(DataError) as caught:
        load_dataset(_dataset(tmp_path, [_question(None)], metadata))
    assert (caught.value.path.endswith("metadata.jsonl"), caught.value.line, caught.value.field) == (True, line, field)
    assert problem in caught.value.problem


@pytest.mark.parametrize(
    ("flt", "problem", "fix"),
    [
        ({"acll": "all"}, "names field 'acll', which no document's metadata has", "metadata fields are: acl, year"),
        ({"acl": "exec"}, "allows no document", "loosen it"),
        ({"acl": "hr"}, "forbids document 'a.md', which holds this question's evidence", "must lie in documents"),
        ({"year": {"$gte": "2024"}}, "compares numbers only", "write dates as numbers"),
    ],
)
def test_filter_errors_name_line_and_field(tmp_path, flt, problem, fix):
    with pytest.raises(DataError) as caught:
        load_dataset(_dataset(tmp_path, [_question(flt)], META))
    assert caught.value.line == 1 and caught.value.field.startswith("filter")
    assert problem in caught.value.problem and fix in caught.value.fix


def test_filter_needs_metadata(tmp_path):
    with pytest.raises(DataError) as caught:
        load_dataset(_dataset(tmp_path, [_question({"acl": "all"})]))
    assert "give documents metadata (metadata.jsonl)" in caught.value.fix
