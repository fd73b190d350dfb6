"""rag_bench.remote.slots: ``concurrency`` requests on the wire among twice as many workers, a slot freed as an
answer arrives; checked with threads alone, then with each hooked provider's real client against its fake."""

import sys
import threading
import time

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.workspace import Workspace
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.remote.slots import SWITCH_INTERVAL_S, Slots, answered, sending
from rag_bench.rerank.registry import RERANKERS
from rag_bench.testing import FakeEmbedder
from rag_bench.testing.cohere_server import FakeCohereServer
from rag_bench.testing.openai_server import FakeOpenAIServer
from rag_bench.testing.tei_server import FakeTeiServer
from rag_bench.testing.voyage_server import FakeVoyageServer

KEY = "slot-test-key"
WAIT_S = 10.0  # the most a test waits for a request that must come


def test_at_most_concurrency_threads_hold_a_slot_and_a_freed_slot_is_taken_at_once():
    slots = Slots(2)
    assert slots.workers == 4
    holding, most, lock = [0], [0], threading.Lock()
    parsed = threading.Barrier(4, timeout=WAIT_S)  # every worker parses at the same time: none holds a slot then

    def worker():
        with slots.held(hooked=True):
            sending()
            sending()  # idempotent: a redirect calls the request hook again
            with lock:
                holding[0] += 1
                most[0] = max(most[0], holding[0])
            time.sleep(0.05)
            with lock:
                holding[0] -= 1
            answered()
            answered()  # idempotent
            parsed.wait()  # 4 workers here at once: possible only if each freed its slot before parsing

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    assert most[0] == 2 and not parsed.broken


def test_a_slot_is_freed_when_the_body_fails_before_an_answer():
    slots = Slots(1)
    with pytest.raises(ConnectionError), slots.held():
        raise ConnectionError("reset")
    assert slots._free.acquire(timeout=1)  # the one slot is free again


def test_outside_held_the_hooks_do_nothing():
    sending()
    answered()  # no slot taken, none freed: a client used outside an API component (a probe, the chat verbs)


def test_requests_run_with_a_short_switch_interval_put_back_when_the_last_is_done():
    before = sys.getswitchinterval()
    slots = Slots(2)
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with slots.held():
            seen["first"] = sys.getswitchinterval()
            first_in.set()
            assert second_in.wait(WAIT_S)
        first_out.set()

    thread = threading.Thread(target=first)
    thread.start()
    assert first_in.wait(WAIT_S)
    with slots.held():
        second_in.set()
        assert first_out.wait(WAIT_S)
        seen["second, after the first left"] = sys.getswitchinterval()  # one request still in a held body
    thread.join(WAIT_S)
    assert seen == {"first": SWITCH_INTERVAL_S, "second, after the first left": SWITCH_INTERVAL_S}
    assert sys.getswitchinterval() == before


def test_a_shorter_switch_interval_set_by_the_caller_is_kept_and_a_failed_request_puts_it_back():
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.0002)
        with Slots(1).held():
            assert sys.getswitchinterval() == pytest.approx(0.0002, abs=2e-6)
        sys.setswitchinterval(0.004)
        with pytest.raises(ConnectionError), Slots(1).held():
            assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL_S, abs=2e-6)
            raise ConnectionError("reset")
        assert sys.getswitchinterval() == pytest.approx(0.004, abs=2e-6)
    finally:
        sys.setswitchinterval(before)


def _wait_for(server, route, count):
    deadline = time.monotonic() + WAIT_S
    while len(server.received(route)) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return len(server.received(route)) >= count


PROVIDERS = {  # provider -> (fake server, its route, settings but base_url, the client's base_url suffix)
    "openai": (FakeOpenAIServer, "/v1/embeddings", {"model": "text-embedding-3-small"}, "/v1"),
    "cohere": (FakeCohereServer, "/v2/embed", {"model": "embed-english-v3.0"}, ""),
    "tei": (FakeTeiServer, "/embed", {"api_key_env": "TEI_API_KEY"}, ""),
    "voyage": (FakeVoyageServer, "/v1/embeddings", {"model": "voyage-2", "dimension": 256}, ""),
}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_next_request_is_on_the_wire_while_the_last_answer_is_parsed(monkeypatch, provider):
    """concurrency 1: request 1's answer is not handed back until request 2 has reached the server, which it can
    only do if request 1 freed its slot when its answer arrived (the worker still "parsing" it)."""
    for variable in ("OPENAI_API_KEY", "CO_API_KEY", "TEI_API_KEY", "VOYAGE_API_KEY"):
        monkeypatch.setenv(variable, KEY)
    fake, route, settings, suffix = PROVIDERS[provider]
    with fake(api_key=KEY, delay_s=0.05) as server:
        cfg = EMBEDDERS.settings(provider, base_url=server.url + suffix, batch_size=2, concurrency=1, **settings)
        model = EMBEDDERS.build(cfg)
        before = len(server.received(route))  # TEI's build asks for one vector's size
        original, overlapped = model.transport.request, []

        def parse_slowly(texts, input_type):
            answer = original(texts, input_type)
            if len(overlapped) == 0:
                overlapped.append(_wait_for(server, route, before + 2))
            return answer

        monkeypatch.setattr(model.transport, "request", parse_slowly)
        texts = [f"audit fee {i}" for i in range(4)]
        vectors = model.embed(texts, "document")
        assert overlapped == [True] and server.max_in_flight == 1
        assert len(server.received(route)) == before + 2
    np.testing.assert_allclose(vectors, FakeEmbedder(model.dimension).embed(texts), atol=1e-6)


def test_a_reranker_sends_the_next_question_while_it_parses_the_last(monkeypatch, tmp_path):
    with FakeTeiServer(delay_s=0.05, model_id="BAAI/bge-reranker-base") as server:
        cfg = RERANKERS.settings("tei", base_url=server.url, concurrency=1)
        reranker = RERANKERS.build(cfg, Workspace(DiskCache(tmp_path)))
        original, overlapped = reranker.transport.request, []

        def parse_slowly(question, documents):
            answer = original(question, documents)
            if len(overlapped) == 0:
                overlapped.append(_wait_for(server, "/rerank", 2))
            return answer

        monkeypatch.setattr(reranker.transport, "request", parse_slowly)
        reranker.prefetch(["audit fee?", "revenue?"], [["the audit fee", "a fee"], ["revenue rose", "fees"]])
        assert overlapped == [True] and server.max_in_flight == 1 and len(server.received("/rerank")) == 2
