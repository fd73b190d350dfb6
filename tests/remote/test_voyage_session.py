"""rag_bench.remote.voyage.hook_session: the voyageai client's per-thread session takes a request's slot as the
request goes out and frees it as the answer arrives; the session is renewed there, never mid-request by voyageai;
a client without those hooks takes the slot before the call instead."""

import math
import threading
import time

import pytest
import requests
from voyageai.api_resources import api_requestor

from rag_bench.embed.registry import EMBEDDERS
from rag_bench.remote import voyage
from rag_bench.remote.slots import Slots, answered
from rag_bench.testing.voyage_server import FakeVoyageServer

KEY = "pa-session-test-key"
WAIT_S = 10.0


def in_a_fresh_thread(fn):
    """``fn()``'s answer, run in a new thread (voyageai and hook_session keep their state per thread)."""
    answer, failure = [], []

    def body():
        try:
            answer.append(fn())
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            failure.append(exc)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join(WAIT_S)
    if failure:
        raise failure[0]
    return answer[0]


def test_the_session_is_hooked_kept_and_renewed_here_at_voyageais_lifetime(monkeypatch):
    def steps():
        context = api_requestor._thread_context
        assert voyage.hook_session()
        first = context.session
        slotted = all(getattr(adapter, "slotted", False) for adapter in first.adapters.values())
        hooked = [answered in first.hooks["response"], slotted]
        never_replaced_by_voyageai = context.session_create_time == math.inf
        assert voyage.hook_session()
        kept = context.session is first and first.hooks["response"].count(answered) == 1
        voyage._SESSION.made = time.time() - api_requestor.MAX_SESSION_LIFETIME_SECS
        assert voyage.hook_session()
        second = context.session
        renewed = second is not first and answered in second.hooks["response"]
        return hooked, never_replaced_by_voyageai, kept, renewed, sorted(second.adapters)

    hooked, never_replaced, kept, renewed, prefixes = in_a_fresh_thread(steps)
    assert hooked == [True, True] and never_replaced and kept and renewed
    assert prefixes == ["http://", "https://"]


def test_the_slot_is_taken_when_the_request_goes_out_not_while_it_is_built():
    """Concurrency 1, one thread: the slot is still free after hook_session (voyageai then builds the request);
    it is taken by the adapter's send and freed by the response hook, before the client decodes the answer."""
    slots, seen = Slots(1), {}

    def free() -> bool:
        taken = slots._free.acquire(blocking=False)
        if taken:
            slots._free.release()
        return taken

    def steps():
        with FakeVoyageServer(api_key=KEY) as server:
            client = voyage.voyage_client(KEY, server.url, 5.0)
            with slots.held(hooked=True):
                assert voyage.hook_session()
                seen["free before the send"] = free()
                session = api_requestor._thread_context.session
                adapter = session.get_adapter(server.url)
                slotted_send = adapter.send

                def send(request, **kwargs):
                    answer = slotted_send(request, **kwargs)
                    seen["free once sent, before the response hooks"] = free()
                    return answer

                adapter.send = send
                session.hooks["response"].append(lambda response, **_: seen.update({"free after ours": free()}))
                client.embed(["the audit fee"], model="voyage-3.5", output_dimension=256)
            return free()

    assert in_a_fresh_thread(steps)
    assert seen == {
        "free before the send": True,
        "free once sent, before the response hooks": False,
        "free after ours": True,
    }


class Unhooked(requests.Session):
    """A session whose response hooks are not where hook_session looks for them (another voyageai's layout)."""

    def __init__(self) -> None:
        super().__init__()
        self.hooks = {}


@pytest.mark.parametrize("hooks", ["voyageai's session", "none (another voyageai)"])
def test_at_most_concurrency_requests_reach_the_server_with_or_without_the_hooks(monkeypatch, hooks):
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    if hooks.startswith("none"):
        monkeypatch.setattr(api_requestor, "_make_session", Unhooked)
    with FakeVoyageServer(api_key=KEY, delay_s=0.05) as server:
        settings = {"model": "voyage-2", "dimension": 256, "batch_size": 1, "concurrency": 1}
        model = EMBEDDERS.build(EMBEDDERS.settings("voyage", base_url=server.url, **settings))
        model.embed([f"audit fee {i}" for i in range(6)], "document")
        assert server.max_in_flight == 1 and len(server.received("/v1/embeddings")) == 6


def test_a_session_without_hooks_is_reported(monkeypatch):
    monkeypatch.setattr(api_requestor, "_make_session", lambda: object())  # not a requests session

    def steps():
        return voyage.hook_session(), getattr(api_requestor._thread_context, "session_create_time", None)

    hooked, created = in_a_fresh_thread(steps)
    assert hooked is False and created != math.inf  # voyageai still renews a session it cannot hook
