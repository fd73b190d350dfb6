"""A fake Voyage AI API on 127.0.0.1, for tests: ``/v1/embeddings`` and ``/v1/rerank``.

Vectors are ``FakeEmbedder`` word hashes (so texts that share words are close) at the requested
``output_dimension`` (1024 by default), sent as base64 float32 or as float lists as the client
asks; rerank scores are ``FakeReranker`` word overlaps. A "token" is a word or punctuation mark,
and ``usage.total_tokens`` follows Voyage's billing (rerank: query tokens x documents + document
tokens). Every request is recorded; faults are queued with ``inject`` and each is used by one
request: "429" (with Retry-After), "500", "503", "reset" (the connection is dropped with a TCP
RST) or "slow" (the answer waits ``delay_s``). ``delay_s`` on the server slows every request.

    with FakeVoyageServer(api_key="test-key") as server:
        server.inject("503", times=2)
        ... base_url=server.url ...
        assert len(server.received("/v1/embeddings")) == 3
"""

from __future__ import annotations

import base64
import json
import re
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from rag_bench.embed.fake import FakeEmbedder
from rag_bench.rerank.fake import FakeReranker
from rag_bench.testing.in_flight import CountsInFlight

KINDS = ("429", "500", "503", "reset", "slow")
_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class Fault:
    kind: str  # one of KINDS
    retry_after: str | None = None  # the Retry-After header of a 429
    delay_s: float = 1.0  # how long "slow" waits
    path: str | None = None  # only requests to this path use it; None = any


@dataclass
class Received:
    """One request as the server saw it."""

    path: str
    body: dict
    authorization: str | None
    outcome: str  # "200", "400", "401", "429", "500", "503", "reset", "slow" (answered late, maybe to no one)
    at: float = field(default_factory=time.monotonic)

    @property
    def texts(self) -> list[str]:
        """The texts sent: ``input`` for embeddings, ``documents`` for rerank."""
        items = self.body.get("input", self.body.get("documents", []))
        return [items] if isinstance(items, str) else list(items)


def tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


class FakeVoyageServer:
    """Context manager: starts on an ephemeral port in a background thread, stops on exit."""

    def __init__(self, api_key: str | None = None, delay_s: float = 0.0, max_texts: int = 1000) -> None:
        self.api_key = api_key  # None = accept any key
        self.delay_s = delay_s
        self.max_texts = max_texts
        self.requests: list[Received] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.fake = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (clients add ``/v1``)."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> FakeVoyageServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def inject(self, fault: Fault | str, times: int = 1) -> None:
        """Queue ``fault`` for the next ``times`` matching requests."""
        fault = Fault(fault) if isinstance(fault, str) else fault
        if fault.kind not in KINDS:
            raise ValueError(f"fault kind {fault.kind!r} is not one of {KINDS}")
        with self._lock:
            self._faults.extend([fault] * times)

    def received(self, path: str | None = None, outcome: str | None = None) -> list[Received]:
        with self._lock:
            return [r for r in self.requests if (path is None or r.path == path) and (outcome in (None, r.outcome))]

    def _next_fault(self, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.path in (None, path):
                    self._faults.remove(fault)
                    return fault
        return None

    def _record(self, received: Received) -> None:
        with self._lock:
            self.requests.append(received)

    def _enter(self, delta: int) -> None:
        with self._lock:
            self.in_flight += delta
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeVoyageServer

    def handle_error(self, request, client_address) -> None:
        pass  # a client that timed out and left, or a connection we reset on purpose


class _Handler(CountsInFlight, BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format, *args) -> None:
        pass

    def do_POST(self) -> None:
        self.arrived()
        try:
            self._serve(self.server.fake)
        finally:
            self.answering()  # a request that ended without an answer

    def _serve(self, fake: FakeVoyageServer) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        path = self.path.rstrip("/")
        received = Received(path, body, self.headers.get("Authorization"), "200")
        fake._record(received)
        if fake.delay_s:
            fake.wait(fake.delay_s)
        fault = fake._next_fault(path)
        if fault is not None:
            received.outcome = fault.kind
            if fault.kind != "slow":
                return self._fail(fault)
            fake.wait(fault.delay_s)
        status, payload = self._answer(fake, path, body)
        if fault is None:
            received.outcome = str(status)
        self._send(status, payload)

    def _answer(self, fake: FakeVoyageServer, path: str, body: dict) -> tuple[int, dict]:
        if fake.api_key is not None and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
            return 401, {"detail": "Provided API key is invalid."}
        if path not in ("/v1/embeddings", "/v1/rerank"):
            return 404, {"detail": f"no endpoint {path}"}
        if not body.get("model"):
            return 400, {"detail": "model is required"}
        texts = body.get("input") if path == "/v1/embeddings" else body.get("documents")
        texts = [texts] if isinstance(texts, str) else texts
        if not texts or len(texts) > fake.max_texts:
            return 400, {"detail": f"the list must hold 1 to {fake.max_texts} texts, not {len(texts or [])}"}
        return 200, (embeddings(body, texts) if path == "/v1/embeddings" else rerank(body, texts))

    def _fail(self, fault: Fault) -> None:
        if fault.kind == "reset":
            self.answering()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
        detail = {"429": "Rate limit exceeded", "500": "Internal error", "503": "Service unavailable"}
        self._send(int(fault.kind), {"detail": detail[fault.kind]}, headers)

    def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.answering()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout) before the answer
            self.close_connection = True


def embeddings(body: dict, texts: list[str]) -> dict:
    vectors = FakeEmbedder(body.get("output_dimension") or 1024).embed(texts)
    if body.get("encoding_format") == "base64":
        items = [base64.b64encode(np.asarray(v, "<f4").tobytes()).decode("ascii") for v in vectors]
    else:
        items = [[float(x) for x in v] for v in vectors]
    return {
        "object": "list",
        "data": [{"object": "embedding", "embedding": e, "index": i} for i, e in enumerate(items)],
        "model": body["model"],
        "usage": {"total_tokens": sum(tokens(t) for t in texts)},
    }


def rerank(body: dict, documents: list[str]) -> dict:
    query = body.get("query", "")
    scores = FakeReranker().score(query, documents)
    order = sorted(range(len(documents)), key=lambda i: (-scores[i], i))[: body.get("top_k") or None]
    data = [{"index": i, "relevance_score": float(scores[i])} for i in order]
    if body.get("return_documents"):
        for item in data:
            item["document"] = documents[item["index"]]
    used = tokens(query) * len(documents) + sum(tokens(d) for d in documents)
    return {"object": "list", "data": data, "model": body["model"], "usage": {"total_tokens": used}}
