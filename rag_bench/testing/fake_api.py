"""What every fake model API on 127.0.0.1 shares (Voyage, OpenAI-compatible, Cohere, TEI): a threaded HTTP
server on an ephemeral port, the requests it saw, faults to inject, a key to check, a delay, and an
announced and enforced rate limit. A fake says only what its routes answer (``routes``).

Faults are queued with ``inject`` and each is used by one request (optionally on one path only):
"429" (with Retry-After), "500", "503", "reset" (the connection dropped with a TCP RST), "slow" (the
answer waits ``delay_s``), "malformed" (a 200 whose body is not JSON). ``delay_s`` slows every request.
A server that is down is one that was stopped: its port refuses connections. ``delay_s`` counts from the
request's arrival (reading and decoding it are part of the delay, so a fake "answering in 100 ms" does).

``rate_limit`` (requests per minute) is announced in every answer as ``x-ratelimit-limit-requests`` (and
``x-ratelimit-remaining-requests``), as OpenAI's API does, and enforced by a token bucket refilled at
``rate_limit / 60`` per second holding at most ``burst`` requests: a request finding it empty gets a 429
whose Retry-After is the time until the next token.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from rag_bench.testing.fake_http import FakeHandler, QuietServer

KINDS = ("429", "500", "503", "reset", "slow", "malformed")


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
    outcome: str  # "200", "400", "401", "404", "429", "500", "503", "reset", "slow", "malformed"
    at: float = field(default_factory=time.monotonic)
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def texts(self) -> list[str]:
        """The texts sent: ``input`` (embeddings), ``texts`` (Cohere, TEI), ``documents`` (rerank), ``inputs`` (TEI)."""
        for name in ("input", "inputs", "texts", "documents"):
            if name in self.body:
                items = self.body[name]
                return [items] if isinstance(items, str) else list(items)
        return []


class FakeApi:
    """Context manager: starts on an ephemeral port in a background thread, stops (and joins) on exit."""

    PURE: tuple[str, ...] = ()  # paths whose answer depends on the request alone: worked out while delay_s runs

    def __init__(
        self, api_key: str | None = None, delay_s: float = 0.0, rate_limit: float | None = None, burst: float = 1.0
    ) -> None:
        self.api_key = api_key  # None = accept any key
        self.delay_s = delay_s
        self.rate_limit = rate_limit  # requests per minute, announced and enforced; None = unlimited
        self.burst = burst  # requests the bucket holds
        self.requests: list[Received] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._tokens, self._refilled = burst, time.monotonic()
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = QuietServer(("127.0.0.1", 0), _Handler)
        self._httpd.fake = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def routes(self, path: str, body: dict | None, headers: dict[str, str]) -> tuple[int, object]:
        """The answer (status, JSON payload) of a request that passed the key check; a GET's body is None."""
        raise NotImplementedError

    def authorized(self, headers: dict[str, str]) -> bool:
        return self.api_key is None or headers.get("authorization") == f"Bearer {self.api_key}"

    def refusal(self, status: int, message: str) -> dict:
        """The error body of a 4xx (the fake's API's own shape)."""
        return {"error": {"message": message}}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop serving and close the port (idempotent): a client then finds the server down."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        if self._thread.is_alive():
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

    def wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)

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

    def _take_token(self) -> float | None:
        """None when the rate limit lets a request through now, else the seconds until it would."""
        if self.rate_limit is None:
            return None
        per_second = self.rate_limit / 60.0
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.burst, self._tokens + (now - self._refilled) * per_second)
            self._refilled = now
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return None
            return (1.0 - self._tokens) / per_second

    def _limit_headers(self) -> dict[str, str]:
        if self.rate_limit is None:
            return {}
        return {"x-ratelimit-limit-requests": f"{self.rate_limit:g}", "x-ratelimit-remaining-requests": "0"}


class _Handler(FakeHandler):
    def do_GET(self) -> None:
        self.do_POST()

    def _serve(self, fake: FakeApi) -> None:
        arrived = time.monotonic()
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}") if self.command == "POST" else None
        path = self.path.split("?", 1)[0].rstrip("/")
        headers = {k.lower(): v for k, v in self.headers.items()}
        received = Received(path, body or {}, headers.get("authorization"), "200", headers=headers)
        fake._record(received)
        early = None  # (status, JSON bytes) of a pure route, made before the delay ends as a real server would
        if fake.delay_s and path in fake.PURE and fake.authorized(headers):
            status, payload = fake.routes(path, body, headers)
            early = status, json.dumps(payload).encode("utf-8")
        if fake.delay_s:  # the answer is due delay_s after the request arrived, however long making it took
            fake.wait(max(0.0, arrived + fake.delay_s - time.monotonic()))
        fault = fake._next_fault(path)
        if fault is not None:
            received.outcome = fault.kind
            if fault.kind not in ("slow", "malformed"):
                return self._fail(fault)
            if fault.kind == "slow":
                fake.wait(fault.delay_s)
        wait = fake._take_token()
        if wait is not None:
            received.outcome = "429"
            headers_out = {**fake._limit_headers(), "Retry-After": f"{wait:.3f}"}
            return self._send(429, fake.refusal(429, "Rate limit reached"), headers_out)
        raw = None
        if not fake.authorized(headers):
            status, payload = 401, fake.refusal(401, "Incorrect API key provided.")
        elif early is not None:
            (status, raw), payload = early, None
        else:
            status, payload = fake.routes(path, body, headers)
        if fault is None:
            received.outcome = str(status)
        elif fault.kind == "malformed":
            return self._send(200, None, fake._limit_headers(), raw=b'{"data": [{"embedding": [0.1, ')
        self._send(status, payload, fake._limit_headers(), raw=raw)

    def _fail(self, fault: Fault) -> None:
        if fault.kind == "reset":
            return self.reset_connection()
        headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
        detail = {"429": "Rate limit exceeded", "500": "Internal error", "503": "Service unavailable"}
        self._send(int(fault.kind), self.server.fake.refusal(int(fault.kind), detail[fault.kind]), headers)

    def _send(self, status: int, payload: object, headers: dict | None = None, raw: bytes | None = None) -> None:
        self.send_bytes(status, raw if raw is not None else json.dumps(payload).encode("utf-8"), headers)
