import importlib.util
import json

import pytest

from rag_bench.config.schema import DatasetConfig
from rag_bench.core.errors import ConfigError
from rag_bench.data.variants import read_variants
from rag_bench.rewrite.anthropic import AnthropicRewriterConfig
from rag_bench.rewrite.cli import main
from rag_bench.rewrite.prompt import INSTRUCTIONS, parse_reply
from rag_bench.rewrite.run import rewrite
from rag_bench.rewrite.settings import RewriteConfig
from rag_bench.testing.anthropic_server import FakeAnthropicServer, Reply

KEY = "sk-ant-fake-REWRITE-0123456789abcdef"
requires_sdk = pytest.mark.skipif(importlib.util.find_spec("anthropic") is None, reason="anthropic SDK not installed")


def question_of(body):
    return body["messages"][0]["content"].split("<question>\n")[1].split("\n</question>")[0]


def reply_for(body):
    """A scripted model: list markers, a repeat and the question itself, which cleaning must drop."""
    ask, question = body["messages"][0]["content"], question_of(body)
    if "rewordings" in ask:
        return f"1. First wording of: {question}\n2. Second wording\n- second   wording\n{question}\n"
    if "short passage" in ask:
        return "The KR-7 is reset\nwith its pin."
    if "sub-questions" in ask:
        return f"{question}\n"  # asks one thing: the question unchanged
    return "KR-7 reset pin\nsecond line ignored"


def settings(tiny, tmp_path, server, **generator):
    options = {"model": "claude-haiku-4-5", "base_url": server.base_url, "timeout_s": 5.0, "max_retries": 0}
    return RewriteConfig(
        dataset=DatasetConfig(name="tiny", path=str(tiny)),
        generator=AnthropicRewriterConfig(**{**options, **generator}),
        out=str(tmp_path / "variants.jsonl"),
        cache_dir=str(tmp_path / "cache"),
    )


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def test_parse_reply_per_kind():
    assert parse_reply("hyde", "A passage\n  in two lines.\n") == ["A passage in two lines."]
    assert parse_reply("paraphrase", "1. One\n2) Two\n(3) Three\n\n- Four\n* Five") == [
        "One",
        "Two",
        "Three",
        "Four",
        "Five",
    ]
    assert parse_reply("keywords", "a b c\nmore") == ["a b c"]
    assert parse_reply("decompose", "") == []


@requires_sdk
def test_requests_share_a_cached_system_prompt_and_texts_are_cleaned(api_key, tiny, tmp_path):
    with FakeAnthropicServer(default=reply_for, api_key=KEY) as server:
        written = rewrite(settings(tiny, tmp_path, server))
    bodies = [r.body for r in server.requests]
    assert len(bodies) == 8  # 2 questions x 4 kinds
    system = bodies[0]["system"]
    titles = (
        '<knowledge_base documents="2">\n- Router manual\n- Billing\n</knowledge_base>'  # a .md document's # heading
    )
    assert system == [{"type": "text", "text": f"{INSTRUCTIONS}\n\n{titles}", "cache_control": {"type": "ephemeral"}}]
    assert all(b["system"] == system for b in bodies)  # one prefix, cached after the first request
    assert "3 different rewordings" in bodies[0]["messages"][0]["content"]
    assert (
        bodies[0]["model"] == "claude-haiku-4-5" and bodies[0]["max_tokens"] == 400 and "temperature" not in bodies[0]
    )
    entries = {(e.question_id, e.kind): e.texts for e in read_variants(written.path)}
    q2 = "How often are invoices sent?"
    assert entries["q2", "paraphrase"] == (f"First wording of: {q2}", "Second wording")
    assert entries["q2", "hyde"] == ("The KR-7 is reset with its pin.",)
    assert entries["q2", "decompose"] == ()  # the question unchanged is no sub-question
    assert entries["q2", "keywords"] == ("KR-7 reset pin",)
    # tokens and cost from the replies' usage: the fake counts words of the messages and of the reply
    inputs = sum(len(json.dumps(b["messages"]).split()) for b in bodies)
    outputs = sum(len(reply_for(b).split()) for b in bodies)
    record = json.loads(written.usage_path.read_text(encoding="utf-8"))
    assert record["requests"] == 8 and record["replies_from_cache"] == 0
    assert record["tokens"] == {"input": inputs, "cache_write": 0, "cache_read": 0, "output": outputs}
    assert record["price_per_million"] == {"input": 1.0, "output": 5.0}  # claude-haiku-4-5 in the table
    assert record["estimated_cost_usd"] == pytest.approx((inputs * 1.0 + outputs * 5.0) / 1e6)


@requires_sdk
def test_a_rerun_makes_no_requests(api_key, tiny, tmp_path):
    with FakeAnthropicServer(default=reply_for, api_key=KEY) as server:
        first = rewrite(settings(tiny, tmp_path, server))
    text = first.path.read_text(encoding="utf-8")
    with FakeAnthropicServer(default=Reply.error(500)) as server:
        again = rewrite(settings(tiny, tmp_path, server))
    assert server.requests == []
    assert again.path.read_text(encoding="utf-8") == text
    assert again.record["requests"] == 0 and again.record["replies_from_cache"] == 8
    assert again.record["estimated_cost_usd"] == 0.0


@requires_sdk
def test_cost_is_unknown_for_a_model_without_a_price(api_key, tiny, tmp_path):
    with FakeAnthropicServer(default=reply_for, api_key=KEY) as server:
        written = rewrite(settings(tiny, tmp_path, server, model="claude-test"))
        priced = rewrite(settings(tiny, tmp_path / "b", server, model="claude-test", input_price=2.0, output_price=4.0))
    assert written.record["estimated_cost_usd"] is None and written.record["price_per_million"] is None
    tokens = priced.record["tokens"]
    assert priced.record["estimated_cost_usd"] == pytest.approx((tokens["input"] * 2.0 + tokens["output"] * 4.0) / 1e6)


@requires_sdk
def test_key_is_never_written(api_key, tiny, tmp_path, capsys):
    with FakeAnthropicServer(default=reply_for, api_key=KEY) as server:
        overrides = [f"dataset.path={tiny}", "dataset.name=tiny", "generator=anthropic", "kinds=[hyde]"]
        overrides += [f"generator.base_url={server.base_url}", f"out={tmp_path / 'v.jsonl'}"]
        assert main([*overrides, f"cache_dir={tmp_path / 'cache'}"]) == 0
    printed = capsys.readouterr()
    assert (
        "wrote 2 lines (2 questions, kinds hyde)" in printed.out and "requests: 2 (0 replies from cache)" in printed.out
    )
    written = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not any(KEY.encode() in blob for blob in written)
    assert KEY not in printed.out + printed.err


@requires_sdk
@pytest.mark.parametrize(
    ("key", "reply", "error"),
    [
        ("wrong-key", "x", r"the Anthropic API refused ANTHROPIC_API_KEY \(401"),
        (KEY, Reply.error(404), r"check generator\.model \('claude-haiku-4-5'\)"),
    ],
)
def test_api_errors_are_one_clear_line(monkeypatch, tiny, tmp_path, key, reply, error):
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    with FakeAnthropicServer(default=reply, api_key=KEY) as server, pytest.raises(ConfigError, match=error):
        rewrite(settings(tiny, tmp_path, server))


@requires_sdk
def test_missing_key_is_a_config_error(monkeypatch, tiny, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with FakeAnthropicServer() as server, pytest.raises(ConfigError, match="needs the ANTHROPIC_API_KEY"):
        rewrite(settings(tiny, tmp_path, server))


def test_a_single_price_does_not_apply():
    with pytest.raises(ConfigError, match=r"generator\.price_per_million does not apply to Anthropic rewrites"):
        AnthropicRewriterConfig(price_per_million=1.0)
    with pytest.raises(ConfigError, match=r"generator\.timeout_s \(0\.0\) must be positive"):
        AnthropicRewriterConfig(timeout_s=0.0)
