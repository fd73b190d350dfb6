"""The fake servers' in-flight count, which concurrency tests assert on: a sequential client is never counted twice."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from rag_bench.testing import fake_api, retrieval_server
from rag_bench.testing.retrieval_server import FakeRetrievalServer
from rag_bench.testing.voyage_server import FakeVoyageServer

SERVERS = {
    "voyage": (fake_api, lambda: FakeVoyageServer(), "/v1/embeddings", {"model": "m", "input": ["a b"]}),
    "retrieval": (retrieval_server, lambda: FakeRetrievalServer({"q1": []}), "", {"id": "q1", "question": "?", "k": 1}),
}


@pytest.mark.parametrize("name", list(SERVERS))
def test_a_handler_slow_to_finish_after_its_answer_does_not_overlap_the_next_request(name, monkeypatch):
    """As on a loaded machine: the client has its answer and sends again before the handler thread runs on."""
    module, make, path, body = SERVERS[name]
    send = module._Handler._send

    def send_then_stall(self, *args, **kwargs):
        send(self, *args, **kwargs)
        self.wfile.flush()
        time.sleep(0.3)  # the answer is out; the handler has not finished

    monkeypatch.setattr(module._Handler, "_send", send_then_stall)
    with make() as server:
        url = server.url + path
        for _ in range(3):  # one at a time: each request only after the previous answer
            request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
            with urllib.request.urlopen(request, timeout=10) as answer:
                answer.read()
        assert server.max_in_flight == 1
