"""remote/chat.py: token counts from an answer's usage, prices, what keys the reply cache, and the fake's chat
route (OpenAI's prefix caching) checked by hand with plain HTTP."""

import json
import urllib.request

import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.remote.chat import ChatClient, ChatSettings, chat_price, reply_tokens, shown_url
from rag_bench.remote.prices import llm_cost
from rag_bench.testing.openai_server import FakeOpenAIServer


class Usage:
    def __init__(self, prompt_tokens, completion_tokens, cached=None):
        self.prompt_tokens, self.completion_tokens = prompt_tokens, completion_tokens
        self.prompt_tokens_details = None if cached is None else type("Details", (), {"cached_tokens": cached})()


def test_tokens_by_kind_from_an_answers_usage():
    assert reply_tokens(Usage(1200, 80, cached=1024)) == ({"input": 176, "cache_read": 1024, "output": 80}, 1280)
    assert reply_tokens(Usage(30, 5)) == ({"input": 30, "cache_read": 0, "output": 5}, 35)  # no details (Ollama)
    assert reply_tokens(None) == ({"input": 0, "cache_read": 0, "output": 0}, 0)


def test_prices_from_the_table_and_from_settings():
    tokens = {"input": 1000, "cache_read": 2000, "output": 500}
    # gpt-4o-mini in configs/prices.yaml: $0.15 input, $0.075 cached input, $0.60 output per million tokens
    assert llm_cost(tokens, chat_price(ChatSettings(model="gpt-4o-mini"))) == pytest.approx((150 + 150 + 300) / 1e6)
    # prices as settings: cached input billed as input (an upper bound)
    priced = ChatSettings(model="llama3.1", input_price=1.0, output_price=2.0)
    assert llm_cost(tokens, chat_price(priced)) == pytest.approx((3000 * 1.0 + 500 * 2.0) / 1e6)
    assert (
        chat_price(ChatSettings(model="llama3.1")) is None
        and chat_price(ChatSettings(model="llama3.1", input_price=1.0)) is None
    )


def test_the_reply_key_covers_server_model_settings_and_headers_never_the_key(monkeypatch):
    def key(**settings):
        values = {"base_url": "http://127.0.0.1:9/v1", "model": "m", **settings}
        client = ChatClient(ChatSettings(**values), "")
        client.close()
        return client.key

    monkeypatch.setenv("OPENAI_API_KEY", "sk-one")
    base = key()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-two")
    assert key() == base  # another key, the same replies
    assert key(base_url="http://user:pw@127.0.0.1:9/v1") == base  # credentials in the address are not the server
    changed = [
        key(base_url="http://127.0.0.1:10/v1"),
        key(model="n"),
        key(max_tokens=100),
        key(temperature=0.0),
        key(headers={"x-route": "eu"}),
    ]
    assert len({base, *changed}) == 6


def test_addresses_are_shown_without_credentials():
    assert shown_url("http://user:pw@127.0.0.1:8000/v1/") == "http://127.0.0.1:8000/v1"
    assert shown_url("https://api.openai.com/v1") == "https://api.openai.com/v1"
    assert shown_url("http://[::1]:11434/v1") == "http://[::1]:11434/v1"


def test_the_reply_limit_goes_in_the_field_the_server_takes(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with FakeOpenAIServer(chat="ok") as server:
        for field in ("max_tokens", "max_completion_tokens"):
            client = ChatClient(ChatSettings(base_url=f"{server.url}/v1", limit_field=field, max_tokens=33), "")
            assert client.reply("s", "u").text == "ok"
            client.close()
    sent = [r.body for r in server.received("/v1/chat/completions")]
    assert [(b.get("max_tokens"), b.get("max_completion_tokens")) for b in sent] == [(33, None), (None, 33)]
    with pytest.raises(ConfigError, match=r"generator\.limit_field \('max_output_tokens'\) must be one of max_tokens"):
        ChatSettings(limit_field="max_output_tokens")


def test_settings_out_of_range_name_the_setting():
    for values, message in [
        ({"max_tokens": 0}, r"generator\.max_tokens \(0\) must be at least 1"),
        ({"temperature": -0.1}, r"generator\.temperature \(-0\.1\) must lie between 0 and 2"),
        ({"input_price": -1.0}, r"generator\.input_price \(-1\.0\) must not be negative"),
        ({"concurrency": 0}, r"generator\.concurrency \(0\) must be at least 1"),
        ({"base_url": "127.0.0.1:8000"}, r"generator\.base_url \('127\.0\.0\.1:8000'\) must start with http"),
        ({"api_key_env": " "}, r"generator\.api_key_env is empty"),
    ]:
        with pytest.raises(ConfigError, match=message):
            ChatSettings(**values)
    with pytest.raises(ConfigError, match=r"generator\.model is empty; set generator\.model="):
        ChatClient(ChatSettings(model=""), "")


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def test_the_fakes_prefix_cache_by_hand():
    with FakeOpenAIServer(chat="x y .", cache_min=4, cache_step=2) as server:
        url = f"{server.url}/v1/chat/completions"

        def ask(system: str, user: str) -> dict:
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            return post(url, {"model": "llama3.1", "messages": messages})["usage"]

        first = ask("a b c", "d e f")  # 6 tokens, nothing seen before
        second = ask("a b c", "d e x y")  # shares "a b c d e" (5) with the first: 4 + 0 x 2 cached
        third = ask("a b c", "d e f g")  # shares 6 with the first: 4 + 1 x 2
        fourth = ask("a b", "q")  # shares 2: under the minimum of 4
    assert [u["prompt_tokens_details"]["cached_tokens"] for u in (first, second, third, fourth)] == [0, 4, 6, 0]
    assert [u["prompt_tokens"] for u in (first, second, third, fourth)] == [6, 7, 7, 3]
    assert {u["completion_tokens"] for u in (first, second, third, fourth)} == {3}  # "x", "y", "."


def test_an_announced_rate_limit_paces_the_requests(monkeypatch):
    """600 requests a minute, a bucket of one: unpaced back-to-back requests would meet 429s."""
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with FakeOpenAIServer(chat="ok", rate_limit=600, burst=1) as server:
        client = ChatClient(ChatSettings(base_url=f"{server.url}/v1", backoff_s=0.01), "")
        for _ in range(6):
            client.reply("s", "u")
        client.close()
    sent = server.received("/v1/chat/completions")
    # the second request leaves before any answer announced the limit (refused, retried after its Retry-After);
    # from then on each start waits 60 / (0.97 x 600) = 0.103 s after the last (pace.py's SAFETY 0.97), a 3%
    # margin that a loaded machine's scheduling jitter may eat now and then. Unpaced, each of the five requests
    # sent right after an answer would be refused (the bucket refills one request in 0.1 s).
    outcomes = [r.outcome for r in sent]
    assert outcomes[:2] == ["200", "429"] and outcomes.count("200") == 6 and outcomes.count("429") <= 3
