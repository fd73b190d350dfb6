"""Keeping ``concurrency`` requests in flight: a slot is held from a request's send until its answer arrives.

A worker thread that builds a request, sends it, waits for the answer and then parses it (the official
clients build their answer objects inside the call: Voyage 2-3 ms per 128 vectors on one core, more under
load) leaves its share of the concurrency idle while it builds and parses. So an API component runs
``2 x concurrency`` workers that take turns at ``concurrency`` slots: a worker holds a slot only while its
request is on the wire. A transport whose HTTP client has request hooks (``hooked``: httpx's event hooks
for the openai and cohere clients, ``remote/http.py`` for urllib, slot-taking adapters that
``remote/voyage.py`` mounts on the voyageai client's requests session) takes the slot in ``sending``, once
the request is built; otherwise the slot is taken before the call. Every client hands it back in
``answered``, the moment the answer's status line and headers arrive (a response hook), so another worker's request
goes out while this one reads and parses its answer. The pacer (``pace.py``) gives a request its turn
once it holds a slot, and learns the limits an answer announces before the slot is freed, so a request
that waited for a slot still waits its turn under a limit announced meanwhile. A server never sees more
than ``concurrency`` requests at once: it has answered a request before its slot is freed. A request that
fails before any answer frees its slot when ``held`` exits.

While any request is in a ``held`` body, the interpreter's thread switch interval is at most 1 ms (it is
5 ms by default, and put back when the last request is done): a worker whose slot or answer is ready waits
for the GIL while another parses, and at 5 ms a turn that wait cost Voyage and Cohere embedding about 4% of
their throughput at a 100 ms latency (``benchmarks/perf/bench_api_embed.py``; benchmarks/README.md).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from rag_bench.remote.pace import Pacer

_HELD = threading.local()  # .slots: the Slots this thread's request takes a slot of; .holding: it holds one
SWITCH_INTERVAL_S = 0.001  # the most seconds a thread holds the GIL while another waits, during requests
_TURNS = {"requests": 0, "saved": 0.0}  # requests in held bodies; the switch interval from before the first
_TURNS_LOCK = threading.Lock()


@contextmanager
def quick_turns() -> Iterator[None]:
    """The thread switch interval at most ``SWITCH_INTERVAL_S`` in the body, put back as it was when the last
    of the bodies running in any thread exits (a lower interval someone set is kept)."""
    with _TURNS_LOCK:
        if _TURNS["requests"] == 0:
            _TURNS["saved"] = sys.getswitchinterval()
            sys.setswitchinterval(min(_TURNS["saved"], SWITCH_INTERVAL_S))
        _TURNS["requests"] += 1
    try:
        yield
    finally:
        with _TURNS_LOCK:
            _TURNS["requests"] -= 1
            if _TURNS["requests"] == 0:
                sys.setswitchinterval(_TURNS["saved"])


class Slots:
    """At most ``concurrency`` requests in flight among any number of worker threads."""

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency
        self.workers = 2 * concurrency  # threads: half send while the other half build and parse
        self._free = threading.BoundedSemaphore(concurrency)

    @contextmanager
    def held(self, hooked: bool = False, pacer: Pacer | None = None) -> Iterator[None]:
        """A request is sent in the body: it holds a slot from ``sending`` (at once unless ``hooked``, whose
        client calls ``sending``) to ``answered`` (or the end of the body). With a ``pacer`` the request waits
        its turn under the announced rate limit once it holds a slot, and the limits an answer announces are
        learnt as it arrives, before its slot goes to the next request."""
        _HELD.slots, _HELD.holding, _HELD.pacer = self, False, pacer
        try:
            with quick_turns():
                if not hooked:
                    sending()
                yield
        finally:
            answered()
            _HELD.slots = _HELD.pacer = None


def sending(*_: object, **__: object) -> None:
    """Take a slot for this thread's request, waiting for one if none is free (a request hook; idempotent)."""
    slots = getattr(_HELD, "slots", None)
    if slots is not None and not _HELD.holding:
        slots._free.acquire()
        _HELD.holding = True
        if _HELD.pacer is not None:
            _HELD.pacer.wait()


def answered(response: object = None, *_: object, **__: object) -> None:
    """Free the slot this thread holds, if any, after learning the limits ``response``'s headers announce (a
    response hook of httpx or requests, or urllib's answer; idempotent)."""
    if getattr(_HELD, "holding", False):
        if _HELD.pacer is not None and response is not None:
            _HELD.pacer.learn(getattr(response, "headers", None))
        _HELD.holding = False
        _HELD.slots._free.release()
