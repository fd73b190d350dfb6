"""The labelling app's HTTP server: 127.0.0.1 only, requests routed to ``rag_bench/label/api.py``.

Requests whose ``Host`` is not 127.0.0.1 or localhost are refused (a page elsewhere reaching
the server through DNS rebinding), and bodies over 1 MiB are not read.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from rag_bench.core.errors import RagBenchError
from rag_bench.label.api import LabelApp, handle

MAX_BODY = 1 << 20  # bytes


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
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        length = int(self.headers.get("Content-Length") or 0)
        if host not in ("127.0.0.1", "localhost"):  # a page elsewhere reaching us through DNS rebinding
            status, answer = 403, {"error": f"Host {host!r} refused (fix: open {self.server.url})"}
        elif length > MAX_BODY:
            status, answer = 413, {"error": f"body of {length} bytes is over {MAX_BODY} (fix: send one question)"}
        else:
            body = self.rfile.read(length) if length else b""
            try:
                status, answer = handle(self.server.app, method, self.path, self.headers, body)
            except RagBenchError as exc:
                status, answer = 500, {"error": str(exc)}
        headers = {"ETag": f'"{answer["version"]}"'} if "version" in answer else {}
        data = json.dumps(answer, ensure_ascii=False).encode("utf-8")
        self._send(status, data, "application/json; charset=utf-8", headers)

    def _send(self, status: int, data: bytes, kind: str, headers: dict | None = None) -> None:
        self.send_response(status, HTTPStatus(status).phrase)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args) -> None:  # quiet: the console shows the URL only
        pass
