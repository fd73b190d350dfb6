"""The labelling app's HTTP server: 127.0.0.1 only, requests routed to ``rag_bench/label/api.py``.

Requests whose ``Host`` is not 127.0.0.1 or localhost are refused (a page elsewhere reaching
the server through DNS rebinding), and bodies over 1 MiB are not read. Every request gets a JSON
answer: a malformed one (``rag_bench/label/request.py`` reads its length, query and path) a 4xx,
one the server cannot carry out (a save it cannot write, a bug) a 500 naming what failed. A
connection whose body was left unread is closed after the answer, never read as the next request.
"""

from __future__ import annotations

import json
import socket
import sys
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from rag_bench.core.errors import RagBenchError
from rag_bench.label.api import LabelApp, handle
from rag_bench.label.request import ApiError, content_length

MAX_BODY = 1 << 20  # bytes
READ_TIMEOUT_S = 30.0  # a client that stops sending mid-request frees its thread after this long
LINGER_S, LINGER_BYTES = 2.0, 4 * MAX_BODY  # an unread body discarded after the answer, so no reset loses the answer
JSON = "application/json; charset=utf-8"


class LabelServer(ThreadingHTTPServer):
    """The app's HTTP server on 127.0.0.1; ``shutdown()`` stops it."""

    daemon_threads = True

    def __init__(self, app: LabelApp, port: int = 0) -> None:
        self.app = app
        super().__init__(("127.0.0.1", port), _Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"


class _Handler(BaseHTTPRequestHandler):
    server: LabelServer
    protocol_version = "HTTP/1.1"
    timeout = READ_TIMEOUT_S

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if urlsplit(self.path).path in ("/", "/index.html"):
            self._send(200, self.server.app.page, "text/html; charset=utf-8")
        else:
            self._answer("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._answer("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._answer("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._answer("DELETE")

    def _answer(self, method: str) -> None:
        self.unread = True  # the body, until it has been read whole
        try:
            status, answer = self._respond(method)
        except ApiError as exc:
            status, answer = exc.status, {"error": str(exc), **exc.extra}
        except RagBenchError as exc:
            status, answer = 500, {"error": str(exc)}
        except Exception as exc:  # a bug: answered, and the traceback goes to the console
            traceback.print_exc(file=sys.stderr)
            status, answer = 500, {"error": f"internal error ({type(exc).__name__}: {exc}); the console shows where"}
        self._json(status, answer)

    def _respond(self, method: str) -> tuple[int, dict]:
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host not in ("127.0.0.1", "localhost"):  # a page elsewhere reaching us through DNS rebinding
            raise ApiError(403, f"Host {host!r} refused (fix: open {self.server.url})")
        length = content_length(self.headers, MAX_BODY)
        try:
            body = self.rfile.read(length) if length else b""
        except TimeoutError:
            raise ApiError(408, f"body: not sent within {READ_TIMEOUT_S:g} s (fix: send the whole body)") from None
        if len(body) < length:
            raise ApiError(400, f"body ended after {len(body)} of {length} bytes (fix: send the whole body)")
        self.unread = False
        return handle(self.server.app, method, self.path, self.headers, body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a bad request line, headers too long, an unknown method), in JSON."""
        if not self.request_version.startswith("HTTP/1."):  # else http.server answers HTTP/0.9 style: no status line
            self.request_version = "HTTP/1.1"
        self.unread = True
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        self._json(code, {"error": f"{message or phrase} (fix: send an HTTP/1.1 request, as a browser or curl does)"})

    def _json(self, status: int, answer: dict) -> None:
        headers = {"ETag": f'"{answer["version"]}"'} if "version" in answer else {}
        if getattr(self, "unread", False):
            self.close_connection = True
            headers["Connection"] = "close"
        self._send(status, json.dumps(answer, ensure_ascii=False).encode("utf-8"), JSON, headers)
        if self.close_connection and getattr(self, "unread", False):
            self._linger()

    def _send(self, status: int, data: bytes, kind: str, headers: dict | None = None) -> None:
        try:
            self.send_response(status, HTTPStatus(status).phrase)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client left before its answer
            self.close_connection = True

    def _linger(self) -> None:
        """Discard what the client still sends (bounded in bytes and time) before closing, so that closing with
        unread bytes does not reset the connection and lose the answer already sent (RFC 9112 section 9.6)."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(LINGER_S)
            left = LINGER_BYTES
            while left > 0 and (chunk := self.rfile.read1(min(left, 65536))):
                left -= len(chunk)
        except OSError:  # a timeout or a reset: nothing more to do
            pass

    def log_message(self, format: str, *args) -> None:  # quiet: the console shows the URL only
        pass
