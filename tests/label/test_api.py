"""The JSON API through a real HTTP client: reads, writes, refused writes, concurrent edits."""

from __future__ import annotations

import hashlib
import json

import pytest

from rag_bench.data.native import load_dataset
from rag_bench.label.cli import build_app
from rag_bench.run_folder.fingerprint import documents_hash

BACKUPS = 19 + len("Backups ") + 1 + len(" are ")  # 33: "# Retention guide" + CRLF (2), the emoji counts 1


def test_backup_offset_is_counted_in_code_points_of_the_stored_text(guide):
    assert guide.index("kept for 35 days") == BACKUPS
    assert len(guide[:BACKUPS].encode("utf-16-le")) // 2 == BACKUPS + 1  # what UTF-16 counting would give


def test_documents_and_one_document(client, guide):
    status, answer, _ = client.request("GET", "/api/documents")
    assert status == 200
    assert answer["documents"] == [
        {"id": "billing.md", "title": "Billing", "length": 76},
        {"id": "guide.md", "title": "Retention guide", "length": len(guide)},
    ]
    status, doc, _ = client.request("GET", "/api/documents/guide.md")
    assert (status, doc["text"], doc["title"]) == (200, guide, "Retention guide")
    assert client.request("GET", "/api/documents/nope.md")[0] == 404


def test_search_returns_chunks_with_highlighted_terms(client, guide):
    status, answer, _ = client.request("GET", "/api/search?q=audit+REGULATOR&k=5")
    assert status == 200
    hit = answer["results"][0]
    assert (hit["doc_id"], hit["start"]) == ("guide.md", 0)  # the whole guide is one 800-character chunk
    assert guide[hit["start"] : hit["end"]] == hit["text"]
    words = [hit["text"][a:b] for a, b in hit["highlights"]]
    assert words == ["Audit", "regulator"]
    assert [r["doc_id"] for r in answer["results"]] == ["guide.md"]  # billing holds neither term
    assert client.request("GET", "/api/search?q=x&k=0")[0] == 400


def test_list_gives_rows_offsets_and_version(client, dataset):
    status, answer, headers = client.request("GET", "/api/questions")
    assert status == 200
    assert answer["version"] == hashlib.sha256((dataset / "questions.jsonl").read_bytes()).hexdigest()
    assert headers["ETag"] == f'"{answer["version"]}"'
    first = answer["questions"][0]
    assert first["spans"] == [{"doc_id": "guide.md", "start": BACKUPS, "end": BACKUPS + 16, "text": "kept for 35 days"}]
    assert first["row"]["evidence"] == [{"doc_id": "guide.md", "text": "kept for 35 days"}]
    assert (first["line"], first["run"]) == (1, None)


def test_create_assigns_the_next_id_and_keeps_other_lines(client, dataset, guide):
    before = (dataset / "questions.jsonl").read_bytes()
    # 19 + 55 + 2 + 9 code points before the line "Audit logs are retained ..." (CRLFs count 2, the emoji 1)
    row = {"question": "How long are audit logs kept?", "evidence": [{"doc_id": "guide.md", "start": 100, "end": 124}]}
    status, answer, _ = client.write("POST", "/api/questions", row)
    assert status == 201, answer
    assert answer["question"]["id"] == "kb-003"
    after = (dataset / "questions.jsonl").read_bytes()
    assert after.startswith(before)  # the old lines keep their bytes
    assert json.loads(after[len(before) :]) == {"id": "kb-003", **row}
    ds = load_dataset(dataset)
    span = ds.questions[2].spans[0]
    assert guide[span.start : span.end] == "retained for seven years"


def test_update_and_delete(client, dataset):
    row = {"question": "How many days are backups kept?", "evidence": [{"doc_id": "guide.md", "text": "35 days"}]}
    status, answer, _ = client.write("PUT", "/api/questions/kb-001", row)
    assert status == 200, answer
    lines = (dataset / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]) == {"id": "kb-001", **row} and len(lines) == 2
    status, answer, _ = client.write("DELETE", "/api/questions/kb-002")
    assert (status, answer["deleted"]) == (200, "kb-002")
    assert [q.id for q in load_dataset(dataset).questions] == ["kb-001"]
    assert client.write("DELETE", "/api/questions/kb-002")[0] == 404


INVALID = [
    ({"question": "  "}, "question: must not be empty"),
    (
        {"question": "?", "evidence": [{"doc_id": "guide.md", "start": 0, "end": True}]},
        "evidence[0].end: must be an integer",
    ),
    ({"question": "?", "evidence": [{"doc_id": "guide.md", "start": 5, "end": 9999}]}, "lies outside document"),
    ({"question": "?", "evidence": [{"doc_id": "guide.md", "start": 0, "end": 5, "text": "nope!"}]}, "does not match"),
    ({"question": "?", "evidence": [{"doc_id": "nope.md", "text": "x"}]}, "evidence[0].doc_id: unknown document id"),
    ({"question": "?", "evidence": [{"doc_id": "guide.md", "text": "e"}]}, "occurs more than once"),
    ({"question": "?", "category": 3}, "category: must be str, got int"),
    ({"question": "?", "colour": "red"}, "unknown field 'colour'"),
    ({"id": "kb-001", "question": "?"}, "id: 'kb-001' is taken"),
    ({"id": "a b", "question": "?"}, "id: 'a b' is empty or contains whitespace"),
    ({"question": "?", "judgements": {"guide.md": 1.5}}, "grade must be an integer"),
    (["not", "an", "object"], "expected a JSON object, got list"),
]


@pytest.mark.parametrize(("body", "expected"), INVALID)
def test_every_invalid_create_is_400_and_leaves_the_file_byte_identical(client, dataset, body, expected):
    before = (dataset / "questions.jsonl").read_bytes()
    status, answer, _ = client.write("POST", "/api/questions", body)
    assert status == 400
    assert expected in answer["error"] and "fix:" in answer["error"]
    assert (dataset / "questions.jsonl").read_bytes() == before


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"question": "caf\xe9"}', "question: holds bytes that are not UTF-8 (0xe9)"),
        (b'{"question": "\\ud800"}', "question: holds a lone surrogate \\ud800"),
        (b'{"question": NaN}', "NaN is not a finite number"),
        (b'{"question": ', "malformed JSON"),
    ],
)
def test_bodies_the_loader_would_refuse_are_400(client, dataset, raw, expected):
    before = (dataset / "questions.jsonl").read_bytes()
    status, answer, _ = client.write("PUT", "/api/questions/kb-001", raw=raw)
    assert (status, expected in answer["error"]) == (400, True), answer
    assert (dataset / "questions.jsonl").read_bytes() == before


def test_update_cannot_change_the_id(client, dataset):
    before = (dataset / "questions.jsonl").read_bytes()
    status, answer, _ = client.write("PUT", "/api/questions/kb-001", {"id": "kb-009", "question": "?"})
    assert status == 400 and "differs from the question being changed" in answer["error"]
    assert (dataset / "questions.jsonl").read_bytes() == before


def test_a_concurrent_edit_on_disk_is_detected_and_kept(client, dataset):
    version = client.version()
    path = dataset / "questions.jsonl"
    edited = path.read_bytes() + json.dumps({"id": "kb-050", "question": "Written in an editor"}).encode() + b"\n"
    path.write_bytes(edited)  # someone else saves the file
    for method, target, body in [
        ("POST", "/api/questions", {"question": "From the page"}),
        ("PUT", "/api/questions/kb-001", {"question": "Changed"}),
        ("DELETE", "/api/questions/kb-002", None),
    ]:
        status, answer, _ = client.request(method, target, body, headers={"If-Match": version})
        assert status == 409 and "changed on disk" in answer["error"], answer
        assert answer["version"] != version
        assert path.read_bytes() == edited  # never overwritten
    status, _, _ = client.request(
        "POST", "/api/questions", {"question": "Again"}, headers={"If-Match": answer["version"]}
    )
    assert status == 201  # with the new version the write goes through, the editor's line kept
    assert [q.id for q in load_dataset(dataset).questions] == ["kb-001", "kb-002", "kb-050", "kb-051"]


def test_writes_need_if_match_and_json(client, dataset):
    before = (dataset / "questions.jsonl").read_bytes()
    assert client.request("POST", "/api/questions", {"question": "?"})[0] == 428
    headers = {"If-Match": client.version(), "Content-Type": "text/plain"}
    assert client.request("POST", "/api/questions", raw=b'{"question": "?"}', headers=headers)[0] == 415
    assert (dataset / "questions.jsonl").read_bytes() == before


def test_other_hosts_are_refused(client):
    status, answer, _ = client.request("GET", "/api/questions", headers={"Host": "evil.example:80"})
    assert status == 403 and "evil.example" in answer["error"]


def test_an_invalid_file_on_disk_is_reported_not_overwritten(client, dataset):
    path = dataset / "questions.jsonl"
    version = client.version()
    path.write_bytes(path.read_bytes() + b'{"id": "kb-003", "question": ""}\n')
    status, answer, _ = client.request("GET", "/api/questions")
    assert status == 409 and "questions.jsonl:3: question: must not be empty" in answer["error"]
    broken = path.read_bytes()
    assert client.request("POST", "/api/questions", {"question": "?"}, headers={"If-Match": version})[0] == 409
    assert path.read_bytes() == broken


def test_misses_from_a_run_folder(dataset, tmp_path, serve, client_for):
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.json").write_text(json.dumps({"fingerprint": {"documents": documents_hash(dataset)}}))
    (run / "per_question.csv").write_text(
        "question_id,labelled,hit@10,first_hit_rank\nkb-001,True,0.0,14\nkb-002,True,1.0,2\n"
    )
    server = serve(build_app(dataset, run=run, k=10))
    questions = client_for(server).request("GET", "/api/questions")[1]["questions"]
    assert [q["run"] for q in questions] == [{"first_hit_rank": 14, "hit": False}, {"first_hit_rank": 2, "hit": True}]


def test_a_run_of_other_documents_is_refused_and_edited_questions_are_not(dataset, tmp_path):
    from rag_bench.core.errors import DataError
    from rag_bench.pipeline.run import run as run_pipeline
    from rag_bench.report.run.outputs import write_run
    from tests.test_extending import compose_run

    other = write_run(
        run_pipeline(compose_run(tmp_path, ["retrieval=bm25"], {})), tmp_path / "annual-report-run"
    )  # a real run of another dataset (annual-report) whose question ids need not differ
    assert other["dataset"] == "annual-report"
    with pytest.raises(DataError, match=r"annual-report-run: was scored on other documents than .*data's"):
        build_app(dataset, run=tmp_path / "annual-report-run")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "metrics.json").write_text(json.dumps({"fingerprint": {"documents": documents_hash(dataset)}}))
    (mine / "per_question.csv").write_text("question_id,labelled,hit@10,first_hit_rank\nkb-001,True,1.0,1\n")
    questions = dataset / "questions.jsonl"
    questions.write_bytes(questions.read_bytes().replace(b"?", b"? "))  # labelling goes on: questions change
    assert build_app(dataset, run=mine).outcomes()["questions"]["kb-001"]["hit"] is True
