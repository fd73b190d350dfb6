"""Malformed requests over real sockets: each gets a 4xx JSON answer, nothing is written, the server keeps serving."""

from __future__ import annotations

import json

import pytest

from .conftest import raw_exchange

BIG = json.dumps({"question": "x" * (1 << 20)}).encode()  # a valid row, just over the 1 MiB limit


def put(headers: dict[str, str], body: bytes = b"") -> bytes:
    """A PUT of question kb-001 with exactly these headers (and Host), as raw bytes."""
    lines = ["PUT /api/questions/kb-001 HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + body


def get(target: str) -> bytes:
    return f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()


@pytest.mark.parametrize(
    ("length", "body", "status", "error"),
    [
        # before: read to EOF past the limit, and the 1 MiB question was written (200)
        ("-1", BIG, 400, "Content-Length: '-1' is not a whole number of bytes"),
        ("abc", b"{}", 400, "Content-Length: 'abc' is not a whole number of bytes"),  # before: no answer
        # ARABIC-INDIC 3 (int() takes it), sent in UTF-8; header bytes read as Latin-1, as HTTP says
        ("\u0663", b"{}", 400, "Content-Length: '\u00d9\u00a3' is not a whole number of bytes"),
        ("1_0", b"{}", 400, "Content-Length: '1_0' is not a whole number of bytes"),  # int() takes it as 10
        ("+2", b"{}", 400, "Content-Length: '+2' is not a whole number of bytes"),
        ("9" * 5000, b"{}", 413, "Content-Length: a body of 9999"),  # int() refuses over 4300 digits
    ],
)
def test_a_bad_content_length_is_a_4xx_and_nothing_is_written(server, dataset, client, length, body, status, error):
    before = (dataset / "questions.jsonl").read_bytes()
    headers = {"Content-Type": "application/json", "If-Match": client.version(), "Content-Length": length}
    got, answer, response_headers = raw_exchange(server, put(headers, body))
    assert (got, answer["error"].startswith(error)) == (status, True), answer
    assert "fix:" in answer["error"]
    assert response_headers["content-type"] == "application/json; charset=utf-8"
    assert response_headers["connection"] == "close"  # the body was not read: the connection cannot carry another
    assert (dataset / "questions.jsonl").read_bytes() == before
    assert client.request("GET", "/api/questions")[0] == 200  # still serving


def test_two_different_content_lengths_are_refused(server, dataset, client):
    headers = put({"Content-Type": "application/json", "If-Match": client.version(), "Content-Length": "2"})
    got, answer, _ = raw_exchange(server, headers.replace(b"\r\n\r\n", b"\r\nContent-Length: 20\r\n\r\n") + b"{}")
    assert (got, answer["error"]) == (400, "Content-Length: sent twice, as '2' and '20' (fix: send it once)")


def test_a_chunked_body_is_refused_not_left_in_the_stream(server, client):
    headers = {"Content-Type": "application/json", "If-Match": client.version(), "Transfer-Encoding": "chunked"}
    got, answer, response_headers = raw_exchange(server, put(headers, b"2\r\n{}\r\n0\r\n\r\n"))
    assert got == 411 and answer["error"].startswith("Transfer-Encoding: 'chunked' is not supported")
    assert response_headers["connection"] == "close"


def test_a_body_shorter_than_its_length_is_refused(server, dataset, client):
    before = (dataset / "questions.jsonl").read_bytes()
    headers = {"Content-Type": "application/json", "If-Match": client.version(), "Content-Length": "50"}
    got, answer, _ = raw_exchange(server, put(headers, b'{"question": "?"}'))  # 17 bytes, then the client stops
    assert (got, answer["error"]) == (400, "body ended after 17 of 50 bytes (fix: send the whole body)")
    assert (dataset / "questions.jsonl").read_bytes() == before


def test_a_body_over_the_limit_is_refused_unread(server, client):
    headers = {"Content-Type": "application/json", "If-Match": client.version(), "Content-Length": str(len(BIG))}
    got, answer, response_headers = raw_exchange(server, put(headers, BIG))
    assert got == 413 and answer["error"].startswith(f"Content-Length: a body of {len(BIG)} bytes is over 1048576")
    assert response_headers["connection"] == "close"


@pytest.mark.parametrize(
    ("target", "error"),
    [
        ("/api/search?q=x&k=%C2%B2", "k: '\u00b2' must be a whole number from 1 to 200"),  # SUPERSCRIPT TWO: isdigit()
        ("/api/search?q=x&k=%D9%A3", "k: '\u0663' must be a whole number from 1 to 200"),  # int() reads it as 3
        ("/api/search?q=x&k=-1", "k: '-1' must be a whole number from 1 to 200"),
        ("/api/search?q=x&k=" + "9" * 5000, "k: '" + "9" * 40 + "...' must be a whole number from 1 to 200"),
        ("/api/search?q=%FF&k=3", "query: q holds bytes that are not UTF-8"),
        ("/api/documents/%FF.md", "path: holds bytes that are not UTF-8"),
    ],
)
def test_a_bad_query_or_path_is_a_400(server, target, error):
    got, answer, _ = raw_exchange(server, get(target))
    assert (got, answer["error"].startswith(error)) == (400, True), answer
    assert "fix:" in answer["error"]


@pytest.mark.parametrize(
    ("data", "status"),
    [
        (b"GARBAGE\r\n\r\n", 400),  # no method, path, version
        (b"GET /api/questions HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n", 505),
        (b"GET /api/questions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"a" * 70000 + b"\r\n\r\n", 431),
    ],
)
def test_requests_http_server_refuses_are_answered_in_json(server, data, status):
    got, answer, headers = raw_exchange(server, data)
    assert got == status and headers["content-type"] == "application/json; charset=utf-8"
    assert answer["error"]


def test_the_strict_query_keeps_good_searches(client):
    status, answer, _ = client.request("GET", "/api/search?q=audit&k=007")
    assert (status, [r["doc_id"] for r in answer["results"]]) == (200, ["guide.md"])
