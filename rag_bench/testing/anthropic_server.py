"""A fake Anthropic Messages API on 127.0.0.1, for tests of the real ``anthropic`` client.

    with FakeAnthropicServer(replies=["Paris [1]", Reply.error(529)], default="...") as server:
        client = anthropic.Anthropic(api_key="k", base_url=server.base_url)
        ...
        server.requests  # every request received: path, headers, JSON body

Replies are served in order; once they run out, ``default`` answers (a text, a Reply, or
a function of the request body). Error replies carry ``retry-after-ms`` so the client's
retries wait milliseconds, not seconds. With ``api_key`` set, a request whose key
(``x-api-key``, or ``authorization: Bearer``) differs gets a 401 ``authentication_error``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class Reply:
    """One scripted response: a message with ``text`` (status 200) or an error status."""

    text: str = ""
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def error(cls, status: int, retry_after_ms: int = 5) -> Reply:
        return cls(status=status, headers={"retry-after-ms": str(retry_after_ms)})


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: Mapping[str, str]
    body: dict


Responder = Callable[[dict], "Reply | str"]


class FakeAnthropicServer:
    """``POST /v1/messages`` answered from a script; a context manager that runs in a thread."""

    def __init__(
        self, replies: Sequence[Reply | str] = (), default: Reply | str | Responder = "", api_key: str | None = None
    ) -> None:
        self._script = [r if isinstance(r, Reply) else Reply(r) for r in replies]
        self._default = default
        self.api_key = api_key
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first (use it as a context manager)"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeAnthropicServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = None

    def respond(self, request: RecordedRequest) -> tuple[int, dict, Mapping[str, str]]:
        """(status, JSON body, headers) for one request; records it first."""
        with self._lock:
            self.requests.append(request)
            number = len(self.requests)
            reply = self._script.pop(0) if self._script else self._default
        if self.api_key is not None and presented_key(request.headers) != self.api_key:
            return 401, _error_body(401), {}
        if callable(reply):
            reply = reply(request.body)
        reply = reply if isinstance(reply, Reply) else Reply(reply)
        if reply.status != 200:
            return reply.status, _error_body(reply.status), reply.headers
        return 200, _message(number, request.body, reply.text), reply.headers


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key a request carries: ``x-api-key``, or an ``authorization: Bearer`` token (SDK 2.x)."""
    if "x-api-key" in headers:
        return headers["x-api-key"]
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token if scheme.lower() == "bearer" else None


def _message(number: int, body: dict, text: str) -> dict:
    prompt = json.dumps(body.get("messages", []))
    return {
        "id": f"msg_fake_{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": len(prompt.split()), "output_tokens": len(text.split())},
    }


def _error_body(status: int) -> dict:
    kind = ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": f"fake {kind} ({status})"}}


def _handler(server: FakeAnthropicServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {}
            headers = {k.lower(): v for k, v in self.headers.items()}
            if self.path.split("?")[0] != "/v1/messages":
                self._send(404, _error_body(404), {})
                return
            self._send(*server.respond(RecordedRequest("POST", self.path, headers, body)))

        def _send(self, status: int, payload: dict, headers: Mapping[str, str]) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args) -> None:  # keep test output quiet
            pass

    return Handler
