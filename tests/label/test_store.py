"""The questions file: one line changed per write, line ends, BOM and permissions kept, ids assigned."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from rag_bench.data.native import load_documents
from rag_bench.label.store import QuestionStore, StaleVersion, next_id


def store_of(dataset):
    return QuestionStore(dataset / "questions.jsonl", {d.id: d for d in load_documents(dataset)})


def test_crlf_bom_and_mode_are_kept(dataset):
    path = dataset / "questions.jsonl"
    lines = [json.dumps({"id": "a1", "question": "One?"}), json.dumps({"id": "a2", "question": "Two?"})]
    path.write_bytes(b"\xef\xbb\xbf" + b"".join(line.encode() + b"\r\n" for line in lines))
    os.chmod(path, 0o640)
    store = store_of(dataset)
    version = store.read().version
    assert version == hashlib.sha256(path.read_bytes()).hexdigest()
    entry, new = store.update("a2", {"question": "Zwei?"}, version)
    expected = b"\xef\xbb\xbf" + lines[0].encode() + b'\r\n{"id": "a2", "question": "Zwei?"}\r\n'
    assert path.read_bytes() == expected
    assert new == hashlib.sha256(expected).hexdigest()
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp-")]  # no temporary file left


def test_blank_lines_and_untouched_rows_keep_their_bytes(dataset):
    path = dataset / "questions.jsonl"
    odd = b'{"question":"Spaced?",   "id":"x1"}'  # key order and spacing as a person wrote them
    path.write_bytes(odd + b"\n\n" + b'{"id": "x2", "question": "?"}\n')
    store = store_of(dataset)
    version = store.delete("x2", store.read().version)
    assert path.read_bytes() == odd + b"\n\n"
    entry, _ = store.create({"question": "New?"}, version)
    assert entry.row == {"id": "x3", "question": "New?"} and entry.line == 3
    assert path.read_bytes() == odd + b'\n\n{"id": "x3", "question": "New?"}\n'


def test_a_missing_file_starts_empty_and_is_created(tmp_path, dataset):
    store = QuestionStore(tmp_path / "new.jsonl", store_of(dataset).documents)
    snap = store.read()
    assert (snap.entries, snap.version) == ({}, hashlib.sha256(b"").hexdigest())
    store.create({"question": "First?"}, snap.version)
    assert (tmp_path / "new.jsonl").read_bytes() == b'{"id": "q1", "question": "First?"}\n'


def test_a_stale_version_writes_nothing(dataset):
    store = store_of(dataset)
    path = dataset / "questions.jsonl"
    old = store.read().version
    path.write_bytes(path.read_bytes() + b'{"id": "zz", "question": "?"}\n')
    before = path.read_bytes()
    with pytest.raises(StaleVersion, match="changed on disk"):
        store.create({"question": "?"}, old)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        ([], "q1"),
        (["kb-001", "kb-002", "kb-010"], "kb-011"),
        (["ar-01", "ar-02", "tech-9", "ar-99"], "ar-100"),
        (["q7", "q8"], "q9"),
        (["alpha", "beta"], "q3"),
        (["x1", "x2", "x3", "q3"], "x4"),
        (["{odd}1"], "{odd}2"),
        (["q1", "q2", "alpha", "q3"], "q4"),
    ],
)
def test_next_id_follows_the_files_pattern(ids, expected):
    assert next_id(ids) == expected


def test_each_line_keeps_its_own_line_end_in_a_file_that_mixes_lf_and_crlf(dataset):
    path = dataset / "questions.jsonl"
    one, two, three = (json.dumps({"id": f"m{i}", "question": f"{i}?"}).encode() for i in (1, 2, 3))
    path.write_bytes(one + b"\n" + two + b"\r\n" + three)  # LF, CRLF, and a last line with no end
    store = store_of(dataset)
    _, version = store.update("m1", {"question": "Eins?"}, store.read().version)
    eins = b'{"id": "m1", "question": "Eins?"}'
    assert path.read_bytes() == eins + b"\n" + two + b"\r\n" + three  # the CR of line 2 kept, line 3 as it was
    _, version = store.update("m3", {"question": "Drei?"}, version)
    drei = b'{"id": "m3", "question": "Drei?"}'
    assert path.read_bytes() == eins + b"\n" + two + b"\r\n" + drei  # the changed last line keeps "no end"
    version = store.create({"id": "m4", "question": "Vier?"}, version)[1]
    vier = b'{"id": "m4", "question": "Vier?"}'
    # a new line ends like the first line (LF); the line before it gets that end too, else they would join
    assert path.read_bytes() == eins + b"\n" + two + b"\r\n" + drei + b"\n" + vier + b"\n"
    store.delete("m1", version)
    assert path.read_bytes() == two + b"\r\n" + drei + b"\n" + vier + b"\n"


def test_a_symlinked_questions_file_stays_a_link_and_its_target_changes(dataset, tmp_path):
    target = tmp_path / "elsewhere" / "questions.jsonl"
    target.parent.mkdir()
    path = dataset / "questions.jsonl"
    target.write_bytes(b'{"id": "s1", "question": "Linked?"}\r\n')
    path.unlink()
    path.symlink_to(target)
    store = store_of(dataset)
    store.update("s1", {"question": "Still linked?"}, store.read().version)
    assert path.is_symlink() and os.readlink(path) == str(target)
    assert target.read_bytes() == b'{"id": "s1", "question": "Still linked?"}\r\n'
    assert [p.name for p in target.parent.iterdir()] == ["questions.jsonl"]  # no temporary file left
