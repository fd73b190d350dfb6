"""Loader edge cases: bytes as stored, bad encodings, and values of the wrong kind."""

import json
from pathlib import Path

import pytest

from rag_bench.core.errors import DataError
from rag_bench.core.types import Document
from rag_bench.data.native import load_dataset

DOC = "Alpha beta gamma. Delta epsilon.\nZeta eta theta zeta."


def write_dataset(folder: Path, question_lines: list[str], documents: list | None = None) -> Path:
    documents = documents if documents is not None else [{"id": "d1", "text": DOC}]
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    (folder / "questions.jsonl").write_text("".join(line + "\n" for line in question_lines), encoding="utf-8")
    return folder


def question(**fields) -> str:
    row = {"id": "q1", "question": "Which letters?", "evidence": [{"doc_id": "d1", "start": 0, "end": 5}]}
    row.update(fields)
    return json.dumps({k: v for k, v in row.items() if v is not ...})


def error(folder: Path, question_lines: list[str], documents: list | None = None) -> DataError:
    with pytest.raises(DataError) as info:
        load_dataset(write_dataset(folder, question_lines, documents))
    return info.value


# --- text as stored: CRLF, BOM ------------------------------------------------------------------

CRLF_DOC = "\ufeff# Title line\r\nFirst paragraph.\r\n\r\nSecond paragraph here.\r\n"


def test_docs_folder_keeps_crlf_and_drops_the_bom(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_bytes(CRLF_DOC.encode("utf-8"))
    stored = CRLF_DOC[1:]  # the text as stored, less the BOM
    start = stored.index("Second")  # 14 + 18 + 2: each CRLF is two characters (31 if newlines were translated)
    assert start == 34
    evidence = [{"doc_id": "a.md", "start": start, "end": start + len("Second paragraph")}]
    (tmp_path / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "?", "evidence": evidence}) + "\n")
    ds = load_dataset(tmp_path)
    doc = ds.documents[0]
    assert doc.text == stored and "\r\n" in doc.text
    assert doc.title == "Title line"
    span = ds.questions[0].spans[0]
    assert doc.text[span.start : span.end] == "Second paragraph"


def test_documents_jsonl_and_docs_folder_give_the_same_offsets_and_title(tmp_path):
    folder_a, folder_b = tmp_path / "a", tmp_path / "b"
    (folder_a / "docs").mkdir(parents=True)
    (folder_a / "docs" / "a.md").write_bytes(CRLF_DOC.encode("utf-8"))
    folder_b.mkdir()
    (folder_b / "documents.jsonl").write_text(json.dumps({"id": "a.md", "text": CRLF_DOC}) + "\n")
    rows = [json.dumps({"id": "q", "question": "?", "evidence": [{"doc_id": "a.md", "text": "Second paragraph"}]})]
    for folder in (folder_a, folder_b):
        (folder / "questions.jsonl").write_text(rows[0] + "\n")
    a, b = load_dataset(folder_a), load_dataset(folder_b)
    assert a.documents == b.documents
    assert a.questions[0].spans == b.questions[0].spans
    assert (a.questions[0].spans[0].start, b.documents[0].title) == (34, "Title line")


def test_explicit_title_wins_and_txt_ids_get_no_heading_title(tmp_path):
    documents = [{"id": "x.md", "text": "# Heading\nbody", "title": "Given"}, {"id": "y.txt", "text": "# Not\nbody"}]
    ds = load_dataset(write_dataset(tmp_path, [json.dumps({"id": "q", "question": "?"})], documents))
    assert [d.title for d in ds.documents] == ["Given", None]


def test_jsonl_with_a_bom_and_crlf_lines_loads(tmp_path):
    write_dataset(tmp_path, [])
    body = (question() + "\r\n" + question(id="q2") + "\r\n").encode("utf-8")
    (tmp_path / "questions.jsonl").write_bytes(b"\xef\xbb\xbf" + body)
    assert [q.id for q in load_dataset(tmp_path).questions] == ["q1", "q2"]


# --- encodings -----------------------------------------------------------------------------------


def test_non_utf8_bytes_in_questions_name_the_line_and_field(tmp_path):
    write_dataset(tmp_path, [])
    good = question().encode()
    bad = b'{"id": "q2", "question": "caf\xe9?"}'
    (tmp_path / "questions.jsonl").write_bytes(good + b"\n" + bad + b"\n")
    with pytest.raises(DataError) as info:
        load_dataset(tmp_path)
    message = str(info.value)
    assert "questions.jsonl:2: question: holds bytes that are not UTF-8 (0xe9)" in message
    assert "fix: save the file as UTF-8" in message


def test_non_utf8_bytes_in_documents_jsonl(tmp_path):
    write_dataset(tmp_path, [question()])
    (tmp_path / "documents.jsonl").write_bytes(b'{"id": "d1", "text": "\xff\xfeabc"}\n')
    with pytest.raises(DataError, match=r"documents.jsonl:1: text: holds bytes that are not UTF-8 \(0xff\)"):
        load_dataset(tmp_path)


def test_non_utf8_byte_outside_a_string(tmp_path):
    write_dataset(tmp_path, [])
    (tmp_path / "questions.jsonl").write_bytes(b'{"id": "q1",\xff "question": "?"}\n')
    with pytest.raises(DataError, match=r"questions.jsonl:1: holds bytes that are not UTF-8 \(0xff at byte 12\)"):
        load_dataset(tmp_path)


def test_lone_surrogate_in_a_question(tmp_path):
    message = str(error(tmp_path, ['{"id": "q1", "question": "bad \\ud800 text"}']))
    assert "questions.jsonl:1: question: holds a lone surrogate \\ud800" in message and "fix:" in message


def test_lone_surrogate_in_a_document(tmp_path):
    documents = [{"id": "d1", "text": DOC}]
    write_dataset(tmp_path, [question()], documents)
    (tmp_path / "documents.jsonl").write_text('{"id": "d1", "text": "ok", "metadata": {"k": ["\\udfff"]}}\n')
    with pytest.raises(DataError, match=r"documents.jsonl:1: metadata.k\[0\]: holds a lone surrogate \\udfff"):
        load_dataset(tmp_path)


def test_a_proper_surrogate_pair_is_one_character(tmp_path):
    documents = [{"id": "d1", "text": "go \U0001f680 now"}]
    ds = load_dataset(write_dataset(tmp_path, ['{"id": "q", "question": "\\ud83d\\ude80?"}'], documents))
    assert ds.questions[0].text == "\U0001f680?"


# --- values of the wrong kind ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (question(question="   "), "question: must not be empty"),
        (question(question=""), "question: must not be empty"),
        (
            question(evidence=[{"doc_id": "d1", "start": 0, "end": True}]),
            "evidence[0].end: must be an integer, got bool",
        ),
        (question(evidence=[{"doc_id": "d1", "start": False, "end": 4}]), "evidence[0].start: must be an integer"),
        (
            question(evidence=[{"doc_id": "d1", "start": 0.0, "end": 4}]),
            "evidence[0].start: must be an integer, got float",
        ),
        (
            question(evidence=[{"doc_id": "d1", "start": 0, "end": 4.5}]),
            "evidence[0].end: must be an integer, got float",
        ),
        (question(evidence=[{"doc_id": "d1", "start": 0}]), "evidence[0].end: missing"),
        (question(evidence=[{"doc_id": True, "start": 0, "end": 4}]), "evidence[0].doc_id: must be a string"),
        (question(evidence=[{"doc_id": "d1", "start": 0, "end": 4, "txt": "x"}]), "evidence[0].txt: unknown field"),
        (question(evidence=[{"doc_id": "d1", "start": 0, "end": 5, "text": "Alpha"}] * 2), "evidence[1]: repeats"),
        (question(evidence=[{"doc_id": "d1", "start": 0, "end": 5, "text": "Alpho"}]), "does not match"),
        (question(evidence={"doc_id": "d1"}), "evidence: must be list, got dict"),
        (question(judgements={"d1": -1.5}), "judgements.d1: grade must be an integer, got float"),
        (question(judgements={"d1": True}), "judgements.d1: grade must be an integer, got bool"),
        (question(judgements={"d1": 10**12}), "judgements.d1: grade 1000000000000 is out of range"),
        (question(category=3), "category: must be str, got int"),
        (question(category=["a"]), "category: must be str, got list"),
        (question(answer=42), "answer: must be str, got int"),
        (question(split=1.5), "split: must be str, got float"),
        (question(id=True), "id: must be str or int, got bool"),
        (question(id=1.0), "id: must be str or int, got float"),
        (question(id=""), "id: '' is empty or contains whitespace"),
        (question(source=1), "source: must be str, got int"),
        (question(flags="easy"), "flags: must be list, got str"),
        (question(flags=[1]), "flags[0]: must be a string"),
        (question(generator="replay"), "generator: must be dict, got str"),
        ('{"id": "q1", "question": "?", "evidence": [{"doc_id": "d1", "start": NaN, "end": 4}]}', "NaN"),
        ('{"id": "q1", "question": "?", "evidence": [{"doc_id": "d1", "start": 0, "end": 1e400}]}', "1e400"),
        ('{"id": "q1", "question": "?", "judgements": {"d1": -Infinity}}', "-Infinity"),
        ('{"id": ' + "9" * 5000 + ', "question": "?"}', "more than 4300 digits"),
        ('{"id": "q1", "question": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ],
)
def test_wrong_kinds_are_rejected_with_field_and_fix(tmp_path, line, expected):
    exc = error(tmp_path, [line])
    assert str(exc).startswith(f"{tmp_path / 'questions.jsonl'}:1: ")
    assert expected in str(exc)
    assert exc.fix, f"no fix in: {exc}"


def test_negative_grade_is_a_judged_non_relevant_document(tmp_path):
    documents = [{"id": "d1", "text": DOC}, {"id": "d2", "text": "other"}]
    ds = load_dataset(write_dataset(tmp_path, [question(evidence=..., judgements={"d1": -1, "d2": 2})], documents))
    assert dict(ds.questions[0].judgements) == {"d1": -1, "d2": 2}


def test_offsets_with_matching_text_load(tmp_path):
    ds = load_dataset(
        write_dataset(tmp_path, [question(evidence=[{"doc_id": "d1", "start": 6, "end": 10, "text": "beta"}])])
    )
    assert (ds.questions[0].spans[0].start, ds.questions[0].spans[0].end) == (6, 10)


def test_excerpt_found_only_after_normalising_points_at_the_tolerant_match(tmp_path):
    exc = error(tmp_path, [question(evidence=[{"doc_id": "d1", "text": "Delta  epsilon. Zeta"}])])
    assert "not found verbatim" in str(exc) and "[18, 37)" in str(exc)


def test_source_generator_and_flags_are_accepted(tmp_path):
    row = question(source="synthetic", generator={"name": "replay", "path": "c.jsonl"}, flags=["too easy"])
    ds = load_dataset(write_dataset(tmp_path, [row]))
    assert ds.questions[0].source == "synthetic"


# --- the same rules for one object, outside a file ----------------------------------------------------


def test_parse_question_outside_a_file():
    from rag_bench.data.questions import parse_question

    documents = {"d1": Document("d1", DOC)}
    parsed = parse_question(
        {"id": 7, "question": "Which?", "evidence": [{"doc_id": "d1", "text": "Delta"}], "category": "c"}, documents
    )
    assert (parsed.id, parsed.spans[0].start, parsed.spans[0].end, parsed.category) == ("7", 18, 23, "c")
    with pytest.raises(DataError) as info:
        parse_question({"id": "q", "question": "?", "evidence": [{"doc_id": "d1", "start": 0, "end": True}]}, documents)
    assert (info.value.field, info.value.line) == ("evidence[0].end", None)
