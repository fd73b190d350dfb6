"""rewrite generator=openai: the real ``openai`` client against the fake OpenAI-compatible server on 127.0.0.1."""

import json
import os
import re

import pytest

from rag_bench.config.schema import DatasetConfig
from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.data.variants import read_variants
from rag_bench.rewrite.openai import OpenAIRewriterConfig
from rag_bench.rewrite.prompt import INSTRUCTIONS
from rag_bench.rewrite.run import rewrite
from rag_bench.rewrite.settings import RewriteConfig
from rag_bench.testing.openai_server import FakeOpenAIServer

pytest.importorskip("openai")

KEY = "sk-fake-REWRITE-openai-99"
ROUTE = "/v1/chat/completions"


def reply_for(body):
    """A scripted model: list markers and a repeat, which cleaning must drop."""
    ask = body["messages"][1]["content"]
    if "rewordings" in ask:
        return "1. First wording\n2. Second wording\n- second   wording\n"
    if "short passage" in ask:
        return "The KR-7 is reset\nwith its pin."
    if "sub-questions" in ask:
        return "What is the KR-7?\nHow is it reset?"
    return "KR-7 reset pin\nsecond line ignored"


def settings(tiny, tmp_path, server, **generator):
    options = {"base_url": f"{server.url}/v1", "timeout_s": 5.0, "backoff_s": 0.01, "concurrency": 1, **generator}
    return RewriteConfig(
        dataset=DatasetConfig(name="tiny", path=str(tiny)),
        generator=OpenAIRewriterConfig(**options),
        out=str(tmp_path / "variants.jsonl"),
        cache_dir=str(tmp_path / "cache"),
    )


def words(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", text)


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_titles_come_first_and_the_cost_prices_cached_tokens(api_key, tiny, tmp_path):
    with FakeOpenAIServer(api_key=KEY, chat=reply_for, cache_min=16, cache_step=16) as server:
        written = rewrite(settings(tiny, tmp_path, server))
    bodies = [r.body for r in server.received(ROUTE)]
    assert len(bodies) == 8  # 2 questions x 4 kinds
    titles = '<knowledge_base documents="2">\n- Router manual\n- Billing\n</knowledge_base>'
    assert all(b["messages"][0] == {"role": "system", "content": f"{INSTRUCTIONS}\n\n{titles}"} for b in bodies)
    assert all(b["messages"][1]["content"].startswith("<question>\n") for b in bodies)
    assert (bodies[0]["model"], bodies[0]["max_tokens"], "temperature" in bodies[0]) == ("gpt-4o-mini", 400, False)
    entries = {(e.question_id, e.kind): e.texts for e in read_variants(written.path)}
    assert entries["q2", "paraphrase"] == ("First wording", "Second wording")
    assert entries["q2", "decompose"] == ("What is the KR-7?", "How is it reset?")

    prompts = [words(" ".join(m["content"] for m in b["messages"])) for b in bodies]
    shared = [0]  # the fake's prefix cache: from 16 tokens up, in steps of 16
    for i in range(1, len(prompts)):
        n = max(len(os.path.commonprefix([prompts[i], p])) for p in prompts[:i])
        shared.append(n // 16 * 16 if n >= 16 else 0)
    record = json.loads(written.usage_path.read_text(encoding="utf-8"))
    tokens = {
        "input": sum(map(len, prompts)) - sum(shared),
        "cache_write": 0,
        "cache_read": sum(shared),
        "output": sum(len(words(reply_for(b))) for b in bodies),
    }
    assert record["tokens"] == tokens and tokens["cache_read"] >= 7 * 48  # instructions + titles: over 48 tokens
    assert (record["requests"], record["replies_from_cache"], record["model"]) == (8, 0, "gpt-4o-mini")
    # gpt-4o-mini (configs/prices.yaml): $0.15 input, $0.075 cached input, $0.60 output per million tokens
    expected = (tokens["input"] * 0.15 + tokens["cache_read"] * 0.075 + tokens["output"] * 0.60) / 1e6
    assert record["estimated_cost_usd"] == pytest.approx(expected)

    with FakeOpenAIServer(api_key=KEY, chat="never") as again:  # another address: the cache is per server
        rewrite(settings(tiny, tmp_path / "again", again, temperature=0.0))
    again_bodies = [r.body for r in again.received(ROUTE)]
    assert len(again_bodies) == 8 and {b["temperature"] for b in again_bodies} == {0.0}


def test_a_rerun_on_the_same_server_sends_nothing_and_prices_are_settings(api_key, tiny, tmp_path):
    with FakeOpenAIServer(api_key=KEY, chat=reply_for) as server:
        first = rewrite(settings(tiny, tmp_path, server, model="llama3.1"))
        again = rewrite(settings(tiny, tmp_path, server, model="llama3.1", input_price=1.0, output_price=2.0))
        priced = rewrite(settings(tiny, tmp_path / "b", server, model="llama3.1", input_price=1.0, output_price=2.0))
    assert len(server.received(ROUTE)) == 8 + 0 + 8  # prices do not change replies: the second run is cached
    assert first.record["estimated_cost_usd"] is None and first.record["price_per_million"] is None
    assert again.record["requests"] == 0 and again.record["replies_from_cache"] == 8
    assert again.record["estimated_cost_usd"] == 0.0
    tokens = priced.record["tokens"]
    # without a cached-input price, cached tokens are billed as input (an upper bound)
    expected = ((tokens["input"] + tokens["cache_read"]) * 1.0 + tokens["output"] * 2.0) / 1e6
    assert priced.record["estimated_cost_usd"] == pytest.approx(expected)


def test_refusals_and_failures_name_the_setting(api_key, tiny, tmp_path, monkeypatch):
    with FakeOpenAIServer(api_key=KEY, chat=reply_for) as server:
        with pytest.raises(ConfigError, match=r"does not serve generator\.model: set it to a model it serves"):
            rewrite(settings(tiny, tmp_path, server, model="gpt-9"))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
        with pytest.raises(ConfigError, match=r"refused the key in OPENAI_API_KEY") as caught:
            rewrite(settings(tiny, tmp_path, server))
        assert "sk-wrong" not in str(caught.value)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        server.inject("500", times=2)
        with pytest.raises(ServiceError, match=r"HTTP 500 server error \(2 attempts in .*check generator\.base_url"):
            rewrite(settings(tiny, tmp_path, server, max_retries=1))
    assert [r.outcome for r in server.received(ROUTE)] == ["404", "401", "500", "500"]


def test_settings_are_checked():
    with pytest.raises(ConfigError, match=r"generator\.price_per_million does not apply to a language model"):
        OpenAIRewriterConfig(price_per_million=1.0)
    with pytest.raises(ConfigError, match=r"generator\.temperature \(3\.0\) must lie between 0 and 2"):
        OpenAIRewriterConfig(temperature=3.0)
    with pytest.raises(ConfigError, match=r"generator\.headers\.Authorization would carry the key"):
        OpenAIRewriterConfig(headers={"Authorization": "Bearer x"})
    with pytest.raises(ConfigError, match=r"generator\.titles \(-1\) not negative"):
        OpenAIRewriterConfig(titles=-1)


def test_rewrites_are_asked_concurrently_in_order(api_key, tiny, tmp_path):
    with FakeOpenAIServer(api_key=KEY, chat=reply_for) as server:
        one = rewrite(settings(tiny, tmp_path / "one", server))
    with FakeOpenAIServer(api_key=KEY, chat=reply_for, delay_s=0.2) as server:
        four = rewrite(settings(tiny, tmp_path / "four", server, concurrency=4))
    assert server.max_in_flight == 4 and four.record["requests"] == 8
    assert one.path.read_text(encoding="utf-8") == four.path.read_text(encoding="utf-8")
    assert one.record["tokens"]["output"] == four.record["tokens"]["output"]
