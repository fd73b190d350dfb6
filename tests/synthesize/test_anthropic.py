"""synthesize generator=anthropic against the local fake Messages API: requests, checks, tokens and cost."""

from __future__ import annotations

import importlib.util
import json

import pytest

from rag_bench.remote.prices import llm_cost, model_price
from rag_bench.synthesize.prompt import parse_reply
from rag_bench.synthesize.run import synthesize
from rag_bench.synthesize.settings import VERB
from rag_bench.testing.anthropic_server import FakeAnthropicServer, Reply

KEY = "sk-ant-fake-KEY-synthesize-0123456789"
requires_sdk = pytest.mark.skipif(importlib.util.find_spec("anthropic") is None, reason="anthropic SDK not installed")

AUDIT = {
    "question": "How long are audit logs retained?",
    "excerpt": "Audit logs are retained for seven years",
    "answer": "7 years",
}
BACKUPS = {"question": "For how many days do we keep backups?", "excerpt": "kept for 35 days"}
INVENTED = {"question": "How long are invoices archived?", "excerpt": "Invoices are archived for a decade."}


def reply_for(body: dict) -> str:
    """The scripted answer: by document (its heading) and category (its instruction)."""
    document, ask = (block["text"] for block in body["messages"][0]["content"])
    identifier = "specific identifier" in ask
    if "# Retention guide" in document:
        return json.dumps(AUDIT) + "\nSure, here you go!" if identifier else "```json\n" + json.dumps(BACKUPS) + "\n```"
    if "# Billing" in document:
        return json.dumps(INVENTED)
    return ""


def test_estimated_cost_by_hand():
    usage = {"input": 1000, "output": 200, "cache_write": 5000, "cache_read": 10000}
    # claude-haiku-4-5: $1 in, $5 out, $1.25 cache write, $0.10 cache read per million tokens
    assert llm_cost(usage, model_price("claude-haiku-4-5")) == pytest.approx((1000 + 1000 + 6250 + 1000) / 1e6)
    assert llm_cost(usage, model_price("claude-unknown")) is None


def test_parse_reply_keeps_bad_lines_as_problems():
    found = list(parse_reply('{"question": "Q?", "excerpt": "E"}\n[1, 2]\n{"question": 3}', "a.md", "c", "x"))
    assert [(c.question, c.problem is None) for c in found] == [("Q?", True), ("", False), ("", False)]
    assert found[1].origin == "x line 2" and "not an object" in found[1].problem


@requires_sdk
def test_a_run_produces_checked_questions_and_records_tokens_and_cost(monkeypatch, dataset, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    out = tmp_path / "review.jsonl"

    def settings(server):
        overrides = [f"dataset.path={dataset}", "embedder=fake", "generator=anthropic", f"out={out}"]
        overrides += [f"generator.base_url={server.base_url}", "generator.timeout_s=5", "generator.max_retries=0"]
        return VERB.compose([*overrides, f"cache_dir={tmp_path / 'cache'}"])

    with FakeAnthropicServer(default=reply_for, api_key=KEY) as server:
        done = synthesize(settings(server))
    bodies = [r.body for r in server.requests]
    assert len(bodies) == 5 * 2  # five documents, two categories (configs/synthesize/generator/anthropic.yaml)
    for body in bodies:
        document, ask = body["messages"][0]["content"]
        assert document["cache_control"] == {"type": "ephemeral"} and "cache_control" not in ask
        assert (body["model"], body["max_tokens"]) == ("claude-haiku-4-5", 1024)
        assert "Write 3 different questions of this kind" in ask["text"]
    assert bodies[0]["messages"][0]["content"][0] == bodies[1]["messages"][0]["content"][0]  # one prefix per document

    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["question"], r["category"]) for r in rows] == [
        ("How long are audit logs retained?", "identifier"),
        ("For how many days do we keep backups?", "paraphrase"),
    ]
    assert rows[0]["evidence"][0]["start"] == 85 and rows[0]["answer"] == "7 years"
    assert rows[0]["generator"]["name"] == "anthropic" and rows[0]["generator"]["model"] == "claude-haiku-4-5"
    rejects = [json.loads(line) for line in done.rejects.read_text(encoding="utf-8").splitlines()]
    assert [(r["reason"], r["origin"]) for r in rejects] == [
        ("excerpt not in document", "anthropic billing.md/identifier line 1"),
        ("excerpt not in document", "anthropic billing.md/paraphrase line 1"),
        ("malformed", "anthropic guide.md/identifier line 2"),
    ]  # documents in id order: billing.md's two requests come first

    # the fake counts whitespace-separated words: the prompt's JSON in, the reply out
    expected_in = sum(len(json.dumps(b["messages"]).split()) for b in bodies)
    expected_out = sum(len(reply_for(b).split()) for b in bodies)
    summary = json.loads(done.summary_path.read_text())
    assert summary["usage"] == {
        "requests": 10,
        "input": expected_in,
        "cache_write": 0,
        "cache_read": 0,
        "output": expected_out,
    }
    assert summary["estimated_cost_usd"] == pytest.approx((expected_in * 1.0 + expected_out * 5.0) / 1e6)
    written = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    assert not any(KEY.encode() in blob for blob in written)

    with FakeAnthropicServer(default=Reply.error(500), api_key=KEY) as server:  # a rerun comes from the cache
        again = synthesize(settings(server))
    assert server.requests == [] and again.summary["usage"]["requests"] == 0
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] == rows
