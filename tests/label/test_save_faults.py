"""Saves the app cannot write are answered with a JSON 500 naming the file; nothing is written, the server goes on."""

from __future__ import annotations

import os

import pytest

from rag_bench.label.cli import build_app

ROW = {"question": "How often are invoices issued?", "evidence": [{"doc_id": "billing.md", "start": 10, "end": 38}]}


def test_a_folder_that_is_a_file(dataset, tmp_path, serve, client_for):
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"not a folder\n")
    questions = blocker / "questions.jsonl"
    client = client_for(serve(build_app(dataset, questions=questions)))
    status, answer, _ = client.write("POST", "/api/questions", ROW)  # before the fix: no answer at all
    assert status == 500
    assert answer["error"] == (
        f"cannot write {questions}: File exists (fix: a file stands where a folder is needed: move it, or choose "
        "another path) -- your change was not saved"
    )
    assert blocker.read_bytes() == b"not a folder\n"
    assert client.request("GET", "/api/questions")[0] == 200  # still serving


def test_a_read_only_file_is_not_replaced(dataset, client):
    path = dataset / "questions.jsonl"
    before = path.read_bytes()
    path.chmod(0o444)
    version = client.version()
    status, answer, _ = client.request("PUT", "/api/questions/kb-001", ROW, headers={"If-Match": version})
    assert (status, answer["error"]) == (
        500,
        f"cannot write {path}: it is read-only (fix: chmod u+w {path}, then save again) -- your change was not saved",
    )  # before the fix: replaced (200), even as a user without the right to write it
    assert (path.read_bytes(), path.stat().st_mode & 0o777) == (before, 0o444)
    path.chmod(0o644)
    status, answer, _ = client.request("PUT", "/api/questions/kb-001", ROW, headers={"If-Match": version})
    assert status == 200, answer  # the same server, once the file is writable


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_folder(dataset, client):
    path = dataset / "questions.jsonl"
    before = path.read_bytes()
    dataset.chmod(0o555)
    try:
        status, answer, _ = client.write("DELETE", "/api/questions/kb-002")
    finally:
        dataset.chmod(0o755)
    assert (status, answer["error"]) == (
        500,
        f"cannot write {path}: Permission denied (fix: make the folder writable, or write somewhere else) -- your "
        "change was not saved",
    )
    assert path.read_bytes() == before
    assert not [p for p in dataset.iterdir() if p.name.startswith(".tmp-")]
