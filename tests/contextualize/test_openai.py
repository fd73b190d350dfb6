"""contextualize generator=openai: the real ``openai`` client against the fake OpenAI-compatible server."""

from __future__ import annotations

import json
import re
import time

import pytest

from rag_bench.chunk.contexts import document_hash, read_contexts
from rag_bench.chunk.registry import CHUNKERS
from rag_bench.config.schema import DatasetConfig
from rag_bench.contextualize.cli import main
from rag_bench.contextualize.prompt import INSTRUCTIONS
from rag_bench.contextualize.registry import GENERATORS
from rag_bench.contextualize.run import contextualize
from rag_bench.contextualize.settings import ContextualizeConfig
from rag_bench.core.errors import ConfigError
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.testing.fake_api import Fault
from rag_bench.testing.openai_server import FakeOpenAIServer

pytest.importorskip("openai")

KEY = "sk-fake-KEY-contexts-77aa"
ROUTE = "/v1/chat/completions"
DOC_A = "# Kestrel\nKestrel routers ship firmware v2.\n## Support\nCall support daily."
DOC_B = "# Billing\nInvoices are monthly. Refunds take a week."


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    folder = tmp_path / "tiny"
    folder.mkdir()
    docs = [{"id": "a.md", "text": DOC_A, "title": "Kestrel"}, {"id": "b.md", "text": DOC_B}]
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    question = {"id": "q1", "question": "How often?", "evidence": [{"doc_id": "b.md", "text": "Invoices are monthly."}]}
    (folder / "questions.jsonl").write_text(json.dumps(question) + "\n", encoding="utf-8")
    return folder


def settings_for(tiny, tmp_path, server, **options) -> ContextualizeConfig:
    options = {"model": "gpt-4o-mini", "base_url": f"{server.url}/v1", "timeout_s": 5.0, "backoff_s": 0.01} | {
        "concurrency": 1,  # requests in a known order
        **options,
    }
    return ContextualizeConfig(
        dataset=DatasetConfig(name="tiny", path=str(tiny)),
        chunker=CHUNKERS.settings("recursive", size=60),
        embedder=EMBEDDERS.settings("fake"),
        generator=GENERATORS["openai"].schema(**options),
        out=str(tmp_path / "ctx.jsonl"),
        cache_dir=str(tmp_path / "cache"),
    )


def chunk_of(body: dict) -> str:
    return body["messages"][1]["content"].split("<chunk>\n")[1].split("\n</chunk>")[0]


def context_for(body: dict) -> str:
    return f"Context of:\n{chunk_of(body)}"


def test_the_document_goes_first_and_cached_tokens_are_counted(tiny, tmp_path):
    with FakeOpenAIServer(api_key=KEY, chat=context_for, cache_min=20, cache_step=4) as server:
        path, count, usage = contextualize(settings_for(tiny, tmp_path, server))
    bodies = [r.body for r in server.received(ROUTE)]
    assert count == len(bodies) == 3  # a.md (74 characters) in 2 chunks of at most 60, b.md (51) in 1
    system, user = bodies[0]["messages"]
    assert system == {"role": "system", "content": INSTRUCTIONS}
    assert user["content"].startswith(f"<document>\n{DOC_A}\n</document>\n\n<chunk>\n# Kestrel\n")
    assert (bodies[0]["model"], bodies[0]["max_tokens"]) == ("gpt-4o-mini", 160)
    entry = read_contexts(path).by_key[(document_hash(DOC_B), 0, len(DOC_B))]
    assert entry.context == "Context of: # Billing Invoices are monthly. Refunds take a week."  # one line
    # by hand (a token is a word or punctuation mark): the instructions are 17 tokens, "<document>" 3, a.md's
    # text 15, "</document>" 4, "<chunk>" 3. a.md's second chunk ("## Support ...") shares with its first
    # ("# Kestrel ...") 17 + 3 + 15 + 4 + 3 + 1 ("#") = 43 tokens: 20 + 4 x 5 = 40 cached. b.md's request shares
    # the instructions, "<document>" and "#" (of "# Billing") with both: 21 tokens, 20 cached.
    prompts = [re.findall(r"\w+|[^\w\s]", " ".join(m["content"] for m in b["messages"])) for b in bodies]
    assert len(re.findall(r"\w+|[^\w\s]", INSTRUCTIONS)) == 17 and len(re.findall(r"\w+|[^\w\s]", DOC_A)) == 15
    assert usage["cache_read"] == 40 + 20
    assert usage["input"] + usage["cache_read"] == sum(map(len, prompts))
    assert usage["output"] == sum(len(re.findall(r"\w+|[^\w\s]", context_for(b))) for b in bodies)
    assert (usage["requests"], usage["retries"], usage["cache_write"]) == (3, 0, 0)


@pytest.mark.parametrize(
    "fault",
    [
        Fault("429", retry_after="0.3"),
        Fault("500"),
        Fault("503"),
        Fault("reset"),
        Fault("malformed"),
        Fault("slow", delay_s=3),
    ],
    ids=["429", "500", "503", "reset", "malformed", "slow"],
)
def test_each_transient_fault_is_retried_once(tiny, tmp_path, fault):
    with FakeOpenAIServer(api_key=KEY, chat=context_for) as server:
        server.inject(fault)
        start = time.monotonic()
        _, count, usage = contextualize(settings_for(tiny, tmp_path, server, timeout_s=1.0))
        took = time.monotonic() - start
    assert count == 3 and (usage["requests"], usage["retries"]) == (4, 1)
    assert [r.outcome for r in server.received(ROUTE)] == [fault.kind, "200", "200", "200"]
    if fault.kind == "429":  # the server's Retry-After, not the 0.01 s backoff
        assert server.received(ROUTE)[1].at - server.received(ROUTE)[0].at >= 0.3
    assert took < 10


def test_azure_style_key_header_and_extra_headers(tiny, tmp_path):
    with FakeOpenAIServer(api_key=KEY, chat="ctx") as server:
        server.key_header = "api-key"
        settings = settings_for(tiny, tmp_path, server, key_header="api-key", headers={"x-team": "search"})
        contextualize(settings)
    sent = server.received(ROUTE)
    assert [r.outcome for r in sent] == ["200"] * 3
    assert all(r.headers["api-key"] == KEY and r.headers["x-team"] == "search" for r in sent)


def test_a_local_server_needs_no_key(tiny, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with FakeOpenAIServer(chat="ctx") as server:
        _, count, _ = contextualize(settings_for(tiny, tmp_path, server, api_key_env=None))
    assert count == 3 and {r.authorization for r in server.received(ROUTE)} == {"Bearer none"}


def test_a_missing_key_stops_before_any_work(tiny, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with FakeOpenAIServer(chat="ctx") as server:
        with pytest.raises(
            ConfigError, match="generator=openai needs a key in the environment variable OPENAI_API_KEY"
        ):
            contextualize(settings_for(tiny, tmp_path, server))
        assert server.received() == []
    assert not (tmp_path / "cache" / "vectors").exists()


def test_the_command_prints_tokens_and_never_writes_the_key(tiny, tmp_path, capsys):
    with FakeOpenAIServer(api_key=KEY, chat="A context.") as server:
        overrides = [f"dataset.path={tiny}", "dataset.name=tiny", "embedder=fake", "chunker.size=60"]
        overrides += ["generator=openai", "generator.model=llama3.1", f"generator.base_url={server.url}/v1"]
        overrides += [f"out={tmp_path / 'ctx.jsonl'}", f"cache_dir={tmp_path / 'cache'}"]
        assert main(overrides) == 0
        assert main(overrides) == 0  # a rerun: every reply from the disk cache
        assert len(server.received(ROUTE)) == 3
    printed = capsys.readouterr()
    assert printed.out.count("wrote 3 contexts") == 2
    assert (
        "tokens: requests 3, retries 0, input " in printed.out
        and "tokens: requests 0, retries 0, input 0" in printed.out
    )
    written = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not any(KEY.encode() in blob for blob in written)


def test_chunks_are_asked_concurrently_and_kept_in_order(tiny, tmp_path):
    with FakeOpenAIServer(api_key=KEY, chat=context_for, delay_s=0.3) as server:
        path, count, usage = contextualize(settings_for(tiny, tmp_path, server, concurrency=2))
    assert count == 3 and server.max_in_flight == 2  # a.md's two chunks at once
    entries = sorted(read_contexts(path).by_key.values(), key=lambda e: (e.doc_id, e.start))
    assert [e.context for e in entries] == [
        "Context of: # Kestrel Kestrel routers ship firmware v2.",
        "Context of: ## Support Call support daily.",
        "Context of: # Billing Invoices are monthly. Refunds take a week.",
    ]
