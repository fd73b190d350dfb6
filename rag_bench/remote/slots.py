"""Keeping ``concurrency`` requests in flight: a slot is held from a request's send until its answer arrives.

A worker thread that sends a request, waits for the answer and then parses it (the official clients build
their answer objects inside the call: Cohere about 8 ms per 96 vectors, Voyage 2-3 ms per 128 on one core)
leaves its share of the concurrency idle while it parses. So an API component runs ``2 x concurrency``
workers that take turns at ``concurrency`` slots: a worker holds a slot (``Slots.held``) while its request
is in flight, and the slot is handed back the moment the answer's status line and headers arrive
(``answered``, called by the HTTP client's response hook), so another worker's request is sent while this
one reads and parses its answer. A server never sees more than ``concurrency`` requests at once: it has
answered a request before its slot is freed. A request that fails before any answer frees its slot when
``held`` exits.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_HELD = threading.local()  # .slots: the Slots whose slot this thread holds, if any


class Slots:
    """At most ``concurrency`` requests in flight among any number of worker threads."""

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency
        self.workers = 2 * concurrency  # threads: half send while the other half parse
        self._free = threading.BoundedSemaphore(concurrency)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold a slot while the body sends a request (the slot is freed by ``answered`` or on exit)."""
        if getattr(_HELD, "slots", None) is not None:  # nested (a retry inside a call): one slot is enough
            yield
            return
        self._free.acquire()
        _HELD.slots = self
        try:
            yield
        finally:
            answered()


def answered(*_: object, **__: object) -> None:
    """Free the slot this thread holds, if any (idempotent; a response hook of httpx or requests)."""
    slots = getattr(_HELD, "slots", None)
    if slots is not None:
        _HELD.slots = None
        slots._free.release()
