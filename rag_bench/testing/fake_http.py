"""What the fake HTTP servers share: a quiet threading server, and a handler that counts requests in flight.

A request counts from its arrival until just before its answer's first byte is written (or before
its connection is reset), not after: a client that waits for one answer before sending its next
request must never be counted twice, and once the answer is out it may already have sent the next
one while the handler thread has not yet run its cleanup.
"""

from __future__ import annotations

import socket
import struct
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietServer(ThreadingHTTPServer):
    """A threading HTTP server whose ``fake`` (the fake service's state) its handlers read."""

    daemon_threads = True
    fake: object  # has _enter(delta)

    def handle_error(self, request, client_address) -> None:
        pass  # a client that timed out and left, or a connection we reset on purpose


class FakeHandler(BaseHTTPRequestHandler):
    """A handler that counts itself in flight (``_enter`` on the server's fake) and answers in bytes."""

    server: QuietServer
    _answering = False

    def log_message(self, format, *args) -> None:
        pass

    def do_POST(self) -> None:
        self.arrived()
        try:
            self._serve(self.server.fake)
        finally:
            self.answering()  # a request that ended without an answer

    def _serve(self, fake) -> None:
        raise NotImplementedError

    def arrived(self) -> None:
        self.server.fake._enter(+1)
        self._answering = True

    def answering(self) -> None:
        """The request stops counting (once, however many times it is called)."""
        if self._answering:
            self._answering = False
            self.server.fake._enter(-1)

    def reset_connection(self) -> None:
        """Drop the connection with a TCP reset, no answer (SO_LINGER 0)."""
        self.answering()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def send_bytes(
        self, status: int, data: bytes, headers: dict | None = None, content_type: str = "application/json"
    ) -> None:
        self.answering()
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout) before the answer
            self.close_connection = True
