"""A small dataset and a running labelling server (stopped by the fixture, on success and failure)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from pathlib import Path

import pytest

from rag_bench.label.cli import build_app
from rag_bench.label.server import LabelServer

# CRLF line ends and a character outside the BMP before the evidence: offsets must count code
# points of the text as stored, not UTF-16 units or translated newlines.
GUIDE = (
    "# Retention guide\r\n"
    "Backups \U0001f4be are kept for 35 days in the primary region.\r\n"
    "\r\n"
    "## Logs\r\n"
    "Audit logs are retained for seven years to satisfy the regulator.\r\n"
)
BILLING = "# Billing\nInvoices are issued monthly. Refunds take up to ten working days.\n"
QUESTIONS = [
    {
        "id": "kb-001",
        "question": "How long are backups kept?",
        "evidence": [{"doc_id": "guide.md", "text": "kept for 35 days"}],
    },
    {
        "id": "kb-002",
        "question": "How often are invoices issued?",
        "evidence": [{"doc_id": "billing.md", "start": 10, "end": 38}],
        "category": "paraphrase",
    },
]


def make_dataset(folder: Path, questions: list[dict] = QUESTIONS) -> Path:
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "guide.md").write_bytes(GUIDE.encode("utf-8"))
    (folder / "docs" / "billing.md").write_bytes(BILLING.encode("utf-8"))
    (folder / "questions.jsonl").write_bytes("".join(json.dumps(q) + "\n" for q in questions).encode("utf-8"))
    return folder


@pytest.fixture
def dataset(tmp_path) -> Path:
    return make_dataset(tmp_path / "data")


class Client:
    """A real HTTP client to the server (http.client on loopback)."""

    def __init__(self, server: LabelServer) -> None:
        self.port = server.server_address[1]

    def request(self, method: str, path: str, body=None, headers: dict | None = None, raw: bytes | None = None):
        """(status, JSON answer, response headers)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            data = raw if raw is not None else None if body is None else json.dumps(body).encode()
            sent = {"Content-Type": "application/json"} if data is not None else {}
            connection.request(method, path, body=data, headers={**sent, **(headers or {})})
            response = connection.getresponse()
            return response.status, json.loads(response.read()), dict(response.getheaders())
        finally:
            connection.close()

    def version(self) -> str:
        return self.request("GET", "/api/questions")[1]["version"]

    def write(self, method: str, path: str, body=None, **kwargs):
        return self.request(method, path, body, headers={"If-Match": self.version()}, **kwargs)


@pytest.fixture
def guide() -> str:
    """The text of docs/guide.md as stored."""
    return GUIDE


@pytest.fixture
def serve():
    """serve(app) -> a LabelServer answering on 127.0.0.1 in a thread; every one is stopped at the end."""
    started: list[LabelServer] = []

    def start(app) -> LabelServer:
        running = LabelServer(app, 0)
        started.append(running)
        threading.Thread(target=running.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return running

    try:
        yield start
    finally:
        for running in started:
            running.shutdown()
            running.server_close()


@pytest.fixture
def server(dataset, serve) -> LabelServer:
    return serve(build_app(dataset))


@pytest.fixture
def client(server) -> Client:
    return Client(server)


@pytest.fixture
def client_for():
    """client_for(server) -> a Client of that server."""
    return Client


def raw_exchange(server: LabelServer, data: bytes) -> tuple[int, dict, dict]:
    """Send ``data`` as it is over a fresh socket (for requests a client library refuses to send), close our
    sending side, and read the one answer: (status, JSON answer, headers with lower-case names)."""
    with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)  # end of the body, for a server that reads to EOF
        response = http.client.HTTPResponse(sock)
        response.begin()
        body = response.read()
        headers = {k.lower(): v for k, v in response.getheaders()}
    return response.status, json.loads(body), headers
