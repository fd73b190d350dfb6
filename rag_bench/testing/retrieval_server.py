"""A fake retrieval service on 127.0.0.1, for tests and demos: what ``retrieval=http`` talks to.

It answers ``POST`` ``{"id", "question", "k"}`` with ``{"results": answers[id][:k]}``, where
``answers`` maps question ids to result lists (as in a JSONL run file), or is a function of the
request body (which sees a question's ``"filter"`` when rag-bench sends one; a mapping ignores
it). Every request is recorded. Faults are queued with ``inject``, each used by one request:
"429" (with Retry-After), "500", "reset" (the connection is dropped with a TCP RST),
"slow" (the answer waits ``delay_s``), "malformed" (200 with a body that is not JSON),
"shape" (200 with JSON that has no results list) or "redirect" (``status``, 302 by default, to
``location``). ``delay_s`` on the server slows every request. A GET (what a 302 turns a POST
into) is recorded, with its Authorization header, and answered 405.

    with FakeRetrievalServer({"q1": [{"doc_id": "a.md", "start": 0, "end": 80}]}) as server:
        server.inject("429", times=2, retry_after="0")
        ... retrieval.url=server.url ...

From a shell, serve a JSONL run file as a service: ``python -m rag_bench.testing.retrieval_server run.jsonl``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rag_bench.testing.fake_http import FakeHandler, QuietServer

KINDS = ("429", "500", "reset", "slow", "malformed", "shape", "redirect")
Answers = Mapping[str, list] | Callable[[dict], list]


@dataclass(frozen=True)
class Fault:
    kind: str  # one of KINDS
    retry_after: str | None = None  # the Retry-After header of a 429
    delay_s: float = 1.0  # how long "slow" waits
    location: str | None = None  # where "redirect" points
    status: int = 302  # the status of a "redirect"


@dataclass
class Received:
    """One request as the server saw it."""

    body: dict
    authorization: str | None
    method: str = "POST"
    outcome: str = "200"  # "200", "400", "404", "405" (a GET), or the fault's kind
    at: float = field(default_factory=time.monotonic)

    @property
    def question_id(self) -> str | None:
        return self.body.get("id")


class FakeRetrievalServer:
    """Context manager: starts on an ephemeral (or given) port in a background thread, stops on exit."""

    def __init__(self, answers: Answers, delay_s: float = 0.0, port: int = 0, path: str = "/search") -> None:
        self.answers, self.delay_s, self.path = answers, delay_s, path
        self.requests: list[Received] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = QuietServer(("127.0.0.1", port), _Handler)
        self._httpd.fake = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT/search``: the endpoint to give ``retrieval.url``."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}{self.path}"

    def __enter__(self) -> FakeRetrievalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def inject(self, kind: str, times: int = 1, **fault) -> None:
        """Queue a fault for the next ``times`` requests; ``fault`` sets the other fields of ``Fault``."""
        if kind not in KINDS:
            raise ValueError(f"fault kind {kind!r} is not one of {KINDS}")
        with self._lock:
            self._faults.extend([Fault(kind, **fault)] * times)

    def received(self, outcome: str | None = None) -> list[Received]:
        with self._lock:
            return [r for r in self.requests if outcome in (None, r.outcome)]

    def answer(self, body: dict) -> tuple[int, dict]:
        """The status and JSON an unfaulted request gets."""
        qid, k = body.get("id"), body.get("k")
        if not isinstance(qid, str) or not isinstance(k, int) or not isinstance(body.get("question"), str):
            return 400, {"detail": "send {id: str, question: str, k: int}"}
        results = self.answers(body) if callable(self.answers) else self.answers.get(qid, [])
        return 200, {"results": list(results)[:k]}

    def _next_fault(self) -> Fault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _record(self, received: Received) -> None:
        with self._lock:
            self.requests.append(received)

    def _enter(self, delta: int) -> None:
        with self._lock:
            self.in_flight += delta
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)


class _Handler(FakeHandler):
    def do_GET(self) -> None:
        self.arrived()
        try:
            self.server.fake._record(Received({}, self.headers.get("Authorization"), "GET", "405"))
            self._send(405, json.dumps({"detail": "POST questions here"}).encode())
        finally:
            self.answering()

    def _serve(self, fake: FakeRetrievalServer) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        received = Received(body if isinstance(body, dict) else {}, self.headers.get("Authorization"))
        fake._record(received)
        if fake.delay_s:
            fake.wait(fake.delay_s)
        if self.path.rstrip("/") != fake.path.rstrip("/"):
            received.outcome = "404"
            return self._send(404, json.dumps({"detail": f"no endpoint {self.path}"}).encode())
        fault = fake._next_fault()
        if fault is not None:
            received.outcome = fault.kind
            if fault.kind != "slow":
                return self._fail(fault)
            fake.wait(fault.delay_s)
        status, payload = fake.answer(received.body)
        if fault is None:
            received.outcome = str(status)
        self._send(status, json.dumps(payload).encode("utf-8"))

    def _fail(self, fault: Fault) -> None:
        if fault.kind == "reset":
            return self.reset_connection()
        if fault.kind == "malformed":
            return self._send(200, b"<html>upstream error</html>", content_type="text/html")
        if fault.kind == "shape":
            return self._send(200, json.dumps({"hits": []}).encode())
        if fault.kind == "redirect":
            return self._send(fault.status, b"{}", {"Location": fault.location or "/"})
        headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
        detail = {"429": "Rate limit exceeded", "500": "Internal error"}[fault.kind]
        self._send(int(fault.kind), json.dumps({"detail": detail}).encode(), headers)

    _send = FakeHandler.send_bytes


def answers_from_run(path: Path) -> dict[str, list]:
    """question id -> results, from a JSONL run file (``{"question_id", "results"}`` per line)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[str(row["question_id"])] = row["results"]
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a JSONL run file as a retrieval service on 127.0.0.1.")
    parser.add_argument("run", type=Path, help="JSONL run file: one {question_id, results} per line")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    with FakeRetrievalServer(answers_from_run(args.run), port=args.port) as server:
        print(f"serving {args.run} at {server.url} (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server._thread.join()


if __name__ == "__main__":
    main()
