"""Counting a fake server's requests in flight: from arrival until just before the answer leaves.

A client that waits for one answer before sending its next request must never be counted twice,
so a request stops counting before its answer's first byte is written (or before its connection
is reset), not after: once the answer is out, the client may already have sent the next request
while the handler thread has not yet run its cleanup.
"""

from __future__ import annotations


class CountsInFlight:
    """A request-handler mixin for a server whose ``fake`` has ``_enter(delta)``."""

    _answering = False

    def arrived(self) -> None:
        self.server.fake._enter(+1)
        self._answering = True

    def answering(self) -> None:
        """The request stops counting (once, however many times it is called)."""
        if self._answering:
            self._answering = False
            self.server.fake._enter(-1)
