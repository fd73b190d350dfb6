"""synthesize generator=openai: the real ``openai`` client against the fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import time

import pytest

from rag_bench.entry.cli import main
from rag_bench.synthesize.prompt import INSTRUCTIONS
from rag_bench.synthesize.run import synthesize
from rag_bench.synthesize.settings import VERB
from rag_bench.testing.openai_server import FakeOpenAIServer

pytest.importorskip("openai")

KEY = "sk-fake-KEY-synthesize-openai-42"
ROUTE = "/v1/chat/completions"
AUDIT = {"question": "How long are audit logs retained?", "excerpt": "Audit logs are retained for seven years"}
BACKUPS = {"question": "For how many days do we keep backups?", "excerpt": "kept for 35 days", "answer": "35 days"}
INVENTED = {"question": "How long are invoices archived?", "excerpt": "Invoices are archived for a decade."}


def reply_for(body: dict) -> str:
    """The scripted answer: by document (its heading) and category (its instruction)."""
    user = body["messages"][1]["content"]
    identifier = "specific identifier" in user
    if "# Retention guide" in user:
        return json.dumps(AUDIT) + "\nSure, here you go!" if identifier else "```json\n" + json.dumps(BACKUPS) + "\n```"
    if "# Billing" in user:
        return json.dumps(INVENTED)
    return ""


def overrides(dataset, server, tmp_path, *more: str) -> list[str]:
    return [
        f"dataset.path={dataset}",
        "embedder=fake",
        "generator=openai",
        f"generator.base_url={server.url}/v1",
        "generator.model=llama3.1",
        "generator.timeout_s=5",
        "generator.backoff_s=0.01",
        "generator.concurrency=1",  # requests in a known order (test_concurrent_requests_keep_the_order: 4)
        f"out={tmp_path / 'review.jsonl'}",
        f"cache_dir={tmp_path / 'cache'}",
        *more,
    ]


def words(text: str) -> list[str]:
    """The fake's tokens (its documented rule: a word or a punctuation mark)."""
    return re.findall(r"\w+|[^\w\s]", text)


def test_a_run_writes_checked_questions_and_counts_tokens_and_cached_prefixes(monkeypatch, dataset, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(api_key=KEY, chat=reply_for, cache_min=32, cache_step=8) as server:
        done = synthesize(VERB.compose(overrides(dataset, server, tmp_path)))
    sent = server.received(ROUTE)
    assert len(sent) == 5 * 2 and all(r.authorization == f"Bearer {KEY}" for r in sent)  # 5 documents x 2 kinds
    for r in sent:
        system, user = r.body["messages"]
        assert (r.body["model"], r.body["max_tokens"], "temperature" in r.body) == ("llama3.1", 1024, False)
        assert system == {"role": "system", "content": INSTRUCTIONS}
        assert (
            user["content"].startswith("<document>\n") and "Write 3 different questions of this kind" in user["content"]
        )
    # the document comes before the ask: both categories of one document share the prompt up to the kind
    first, second = (r.body["messages"][1]["content"] for r in sent[:2])
    assert first.split("</document>")[0] == second.split("</document>")[0]

    rows = [json.loads(line) for line in done.out.read_text(encoding="utf-8").splitlines()]
    assert [(r["question"], r["category"], r.get("answer")) for r in rows] == [
        ("How long are audit logs retained?", "identifier", None),
        ("For how many days do we keep backups?", "paraphrase", "35 days"),
    ]
    assert rows[0]["evidence"][0]["start"] == 85  # "Audit logs ..." in guide.md (CRLF line ends count)
    assert rows[0]["generator"]["name"] == "openai" and rows[0]["generator"]["model"] == "llama3.1"
    assert rows[0]["generator"]["base_url"] == f"{server.url}/v1"
    rejects = [json.loads(line) for line in done.rejects.read_text(encoding="utf-8").splitlines()]
    assert [(r["reason"], r["origin"]) for r in rejects] == [
        ("excerpt not in document", "openai billing.md/identifier line 1"),
        ("excerpt not in document", "openai billing.md/paraphrase line 1"),
        ("malformed", "openai guide.md/identifier line 2"),
    ]

    # tokens: every prompt's words, less those the server read from its prefix cache; the replies' words out
    prompts = [words(" ".join(m["content"] for m in r.body["messages"])) for r in sent]
    shared = []  # each prompt's longest prefix shared with an earlier one, cut to 32 + a multiple of 8
    for i, prompt in enumerate(prompts):
        n = max((len(os.path.commonprefix([prompt, earlier])) for earlier in prompts[:i]), default=0)
        shared.append(32 + (n - 32) // 8 * 8 if n >= 32 else 0)
    assert shared[0] == 0 and all(s > 0 for s in shared[1:])  # the instructions alone are over 32 words
    assert all(a < b for a, b in zip(shared[2::2], shared[3::2], strict=True))  # a document's 2nd kind: more
    usage = json.loads(done.summary_path.read_text())["usage"]
    assert usage == {
        "requests": 10,
        "retries": 0,
        "input": sum(map(len, prompts)) - sum(shared),
        "cache_write": 0,
        "cache_read": sum(shared),
        "output": sum(len(words(reply_for(r.body))) for r in sent),
    }
    assert done.summary["estimated_cost_usd"] is None  # llama3.1 has no price in configs/prices.yaml
    written = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    assert not any(KEY.encode() in blob for blob in written)

    with FakeOpenAIServer(api_key=KEY, chat=reply_for) as again:
        rerun = synthesize(VERB.compose(overrides(dataset, again, tmp_path)))
    assert len(again.received(ROUTE)) == 10  # another address (port): its replies are not the first server's
    assert rerun.summary["kept"] == 2


def test_a_rerun_on_the_same_server_sends_nothing(monkeypatch, dataset, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(api_key=KEY, chat=reply_for) as server:
        synthesize(VERB.compose(overrides(dataset, server, tmp_path)))
        rerun = synthesize(VERB.compose(overrides(dataset, server, tmp_path)))
        changed = synthesize(VERB.compose(overrides(dataset, server, tmp_path, "generator.temperature=0.5")))
    assert len(server.received(ROUTE)) == 10 + 0 + 10  # a setting that changes the replies asks again
    assert rerun.summary["usage"]["requests"] == 0 and rerun.summary["kept"] == 2
    assert changed.summary["usage"]["requests"] == 10
    assert {r.body.get("temperature") for r in server.received(ROUTE)[10:]} == {0.5}


def test_the_command_writes_checked_questions(monkeypatch, dataset, tmp_path, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(api_key=KEY, chat=reply_for) as server, pytest.raises(SystemExit) as done:
        main(["synthesize", *overrides(dataset, server, tmp_path)])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert f"kept 2 of 5 candidates -> {tmp_path / 'review.jsonl'}" in out
    assert "tokens: requests 10, retries 0, input " in out and "estimated cost unknown" in out


@pytest.mark.parametrize(
    ("setting", "key", "expected"),
    [
        (
            "generator.model=gpt-9",
            KEY,
            "HTTP 404: The model `gpt-9` does not exist; the server does not serve"
            " generator.model: set it to a model it serves",
        ),
        (
            "generator.max_retries=1",
            "sk-wrong-0001",
            "refused the key in OPENAI_API_KEY .*; set OPENAI_API_KEY to a valid key",
        ),
    ],
    ids=["unknown-model", "wrong-key"],
)
def test_a_refused_setting_is_one_line_exit_2(monkeypatch, dataset, tmp_path, capsys, setting, key, expected):
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with FakeOpenAIServer(api_key=KEY, chat=reply_for) as server, pytest.raises(SystemExit) as done:
        main(["synthesize", *overrides(dataset, server, tmp_path), setting])
    line = last_line(capsys.readouterr().err)
    assert done.value.code == 2 and line.startswith("rag-bench: error: generator=openai (")
    assert re.search(expected, line) and key not in line
    assert len(server.received(ROUTE)) == 1  # refused at once: no retry
    assert not (tmp_path / "review.jsonl").exists()


def last_line(err: str) -> str:
    """The error line (progress lines come before it on stderr); there is exactly one."""
    assert err.count("rag-bench: error:") == 1 and "Traceback" not in err
    return err.rstrip("\n").splitlines()[-1]


def test_a_failing_server_keeps_the_replies_received(monkeypatch, dataset, tmp_path, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)

    def fail_after_four(body: dict) -> str:
        if len(server.received(ROUTE)) == 4:  # the 5th request and its one retry get a 500
            server.inject("500", times=2)
        return reply_for(body)

    with FakeOpenAIServer(api_key=KEY, chat=fail_after_four) as server:
        with pytest.raises(SystemExit) as done:
            main(["synthesize", *overrides(dataset, server, tmp_path, "generator.max_retries=1")])
        line = last_line(capsys.readouterr().err)
        assert done.value.code == 2 and line.startswith(
            f"rag-bench: error: generator=openai (llama3.1 at {server.url}/v1)"
        )
        assert "HTTP 500 server error (2 attempts in" in line and "replies already received are cached" in line
        rerun = synthesize(VERB.compose(overrides(dataset, server, tmp_path)))
    assert [r.outcome for r in server.received(ROUTE)] == ["200"] * 4 + ["500", "500"] + ["200"] * 6
    assert rerun.summary["kept"] == 2 and rerun.summary["usage"]["requests"] == 6  # the four answered: cached


def test_a_server_that_is_down_fails_in_bounded_time(monkeypatch, dataset, tmp_path, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(api_key=KEY) as server:
        url = server.url
    start = time.monotonic()
    with pytest.raises(SystemExit) as done:
        main(["synthesize", *overrides(dataset, server, tmp_path, "generator.max_retries=2")])
    assert time.monotonic() - start < 30 and done.value.code == 2
    line = last_line(capsys.readouterr().err)
    assert f"generator=openai (llama3.1 at {url}/v1): connection failed (ConnectError) (3 attempts in" in line
    assert "check generator.base_url and that the server is running, or use generator=replay" in line


def test_concurrent_requests_keep_the_order_and_the_bound(monkeypatch, dataset, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(api_key=KEY, chat=reply_for) as server:
        one = synthesize(VERB.compose(overrides(dataset, server, tmp_path / "one")))
    with FakeOpenAIServer(api_key=KEY, chat=reply_for, delay_s=0.3) as server:
        start = time.monotonic()
        four = synthesize(VERB.compose(overrides(dataset, server, tmp_path / "four", "generator.concurrency=4")))
        took = time.monotonic() - start
    assert server.max_in_flight == 4 and len(server.received(ROUTE)) == 10
    assert took < 10 * 0.3  # ten requests of 0.3 s, four at a time: about three rounds, not ten

    def kept(done):
        rows = [json.loads(line) for line in done.out.read_text(encoding="utf-8").splitlines()]
        return [(r["question"], r["evidence"], r["generator"]["origin"]) for r in rows]

    assert kept(one) == kept(four) and len(kept(one)) == 2
    assert [json.loads(x)["origin"] for x in one.rejects.read_text().splitlines()] == [
        json.loads(x)["origin"] for x in four.rejects.read_text().splitlines()
    ]
