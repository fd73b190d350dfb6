import importlib.util
import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from rag_bench.chunk.contexts import document_hash, read_contexts
from rag_bench.chunk.registry import CHUNKERS
from rag_bench.config.schema import Config, DatasetConfig
from rag_bench.contextualize.cli import main
from rag_bench.contextualize.offline import OfflineContexts, top_terms
from rag_bench.contextualize.registry import GENERATORS
from rag_bench.contextualize.run import contextualize
from rag_bench.contextualize.settings import VERB, ContextualizeConfig
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Chunk, Document
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.pipeline.run import run
from rag_bench.testing.anthropic_server import FakeAnthropicServer, Reply

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-ant-fake-KEY-0123456789abcdef"
DOC_A = "# Kestrel\nKestrel routers ship firmware v2.\n## Support\nCall support daily."
DOC_B = "# Billing\nInvoices are monthly. Refunds take a week."


@pytest.fixture
def tiny(tmp_path):
    folder = tmp_path / "tiny"
    folder.mkdir()
    docs = [{"id": "a.md", "text": DOC_A, "title": "Kestrel"}, {"id": "b.md", "text": DOC_B}]
    question = {
        "id": "q1",
        "question": "How often are invoices sent?",
        "evidence": [{"doc_id": "b.md", "text": "Invoices are monthly."}],
    }
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    (folder / "questions.jsonl").write_text(json.dumps(question) + "\n", encoding="utf-8")
    return folder


def settings_for(tiny, tmp_path, **generator):
    return ContextualizeConfig(
        dataset=DatasetConfig(name="tiny", path=str(tiny)),
        chunker=CHUNKERS.settings("recursive", size=60),
        embedder=EMBEDDERS.settings("fake"),
        generator=GENERATORS[generator.pop("name", "offline")].schema(**generator),
        out=str(tmp_path / "ctx.jsonl"),
        cache_dir=str(tmp_path / "cache"),
    )


def test_top_terms_by_hand():
    # N = 2; idf(alpha) = idf(gamma) = ln(3/2) + 1 = 1.405, idf(beta) = ln(3/3) + 1 = 1
    # alpha: (1 + ln 2) * 1.405 = 2.379; gamma: 1.405; beta: 1.0
    a, b = Counter({"alpha": 2, "beta": 1, "gamma": 1}), Counter({"beta": 1, "delta": 1})
    df = Counter(t for c in (a, b) for t in c)
    assert (1 + math.log(2)) * (math.log(1.5) + 1) == pytest.approx(2.379, abs=1e-3)
    assert top_terms(a, df, 2, 2) == ["alpha", "gamma"]
    assert top_terms(a, df, 2, 5) == ["alpha", "gamma", "beta"]


def test_offline_context_is_title_trail_and_terms(tmp_path):
    docs = [Document("a.md", DOC_A, title="Kestrel"), Document("b.md", DOC_B)]
    offline = OfflineContexts(GENERATORS["offline"].schema(terms=3), docs, cache=None)
    # a.md: kestrel and support tf 2, the rest tf 1, all with idf ln(3/2) + 1; 'v2' (too short) never
    # counts; ties go by term
    assert offline.top["a.md"] == ["kestrel", "support", "call"]
    chunks = [Chunk("a.md", 10, 43, ""), Chunk("a.md", 55, 74, "")]

    class Bar:
        def update(self, n):
            pass

    assert offline.contexts(docs[0], chunks, Bar()) == [
        "Kestrel. Key terms: kestrel, support, call.",
        "Kestrel > Support. Key terms: kestrel, support, call.",
    ]


def test_offline_end_to_end_on_annual_report(tmp_path):
    out = tmp_path / "ctx.jsonl"
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "rag_bench", "contextualize", "dataset=annual-report", "embedder=fake"]
    command += ["chunker=semantic", "chunker.size=600", f"out={out}"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert f"wrote {len(lines)} contexts to {out}" in done.stdout
    assert {line["doc_id"] for line in lines} == {"annual-report.md"}
    assert all(line["context"].startswith("Corvid Dynamics plc: Annual Report and Accounts 2023") for line in lines)
    config = Config(
        dataset=DatasetConfig(name="annual-report"),
        chunker=CHUNKERS.settings(
            "semantic", size=600, threshold_percentile=2.0, prefix="contexts", contexts=str(out)
        ),  # configs/chunker/semantic.yaml's percentile
        embedder=EMBEDDERS.settings("fake"),
        cache_dir=str(tmp_path / "cache"),
        bootstrap=10,
    )
    result = run(config)
    assert len(result.chunks) == len(lines)
    assert [c.prefix for c in result.chunks] == [line["context"] for line in lines]


def test_bad_setting_is_one_clear_error():
    with pytest.raises(
        ConfigError, match=r"Could not find 'generator/nope' Available options in 'generator': anthropic, offline"
    ):
        VERB.compose(["generator=nope"])


def test_merge_keeps_other_chunkers_contexts(tiny, tmp_path):
    settings = settings_for(tiny, tmp_path)
    _, first, _ = contextualize(settings)
    settings.chunker = CHUNKERS.settings("fixed", size=20)
    settings.merge = True
    path, total, _ = contextualize(settings)
    assert total > first and len(read_contexts(path)) == total


requires_sdk = pytest.mark.skipif(importlib.util.find_spec("anthropic") is None, reason="anthropic SDK not installed")


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def anthropic_settings(tiny, tmp_path, server):
    options = {
        "name": "anthropic",
        "model": "claude-test",
        "base_url": server.base_url,
        "timeout_s": 5.0,
        "max_retries": 1,
    }
    return settings_for(tiny, tmp_path, **options)


def chunk_of(body):
    return body["messages"][0]["content"][1]["text"].split("<chunk>\n")[1].split("\n</chunk>")[0]


@requires_sdk
def test_anthropic_sends_the_document_as_a_cached_prefix(api_key, tiny, tmp_path, capsys):
    with FakeAnthropicServer(default=lambda body: f"Context of: {chunk_of(body)}", api_key=KEY) as server:
        settings = anthropic_settings(tiny, tmp_path, server)
        path, count, usage = contextualize(settings)
    bodies = [r.body for r in server.requests]
    assert count == len(bodies) == 3  # a.md (74 characters) in 2 chunks of at most 60, b.md (51) in 1
    first = bodies[0]
    assert (first["model"], first["max_tokens"]) == ("claude-test", 160)
    document, ask = first["messages"][0]["content"]
    assert document == {
        "type": "text",
        "text": f"<document>\n{DOC_A}\n</document>",
        "cache_control": {"type": "ephemeral"},
    }
    assert ask["text"].startswith("<chunk>\n# Kestrel\nKestrel routers ship firmware v2.\n</chunk>")
    assert "50 to 100 tokens" in ask["text"] and "cache_control" not in ask
    assert bodies[1]["messages"][0]["content"][0] == document  # the same cached prefix for each chunk
    assert KEY in server.requests[0].headers.get("x-api-key", "") + server.requests[0].headers.get("authorization", "")
    contexts = read_contexts(path)
    entry = contexts.by_key[(document_hash(DOC_B), 0, len(DOC_B))]
    assert entry.context == "Context of: # Billing Invoices are monthly. Refunds take a week."  # one line
    assert entry.doc_id == "b.md"
    assert usage["output"] == sum(len(f"Context of: {chunk_of(b)}".split()) for b in bodies)
    # a rerun is served from the disk cache: no request at all
    with FakeAnthropicServer(default=Reply.error(500)) as server:
        contextualize(anthropic_settings(tiny, tmp_path, server))
    assert server.requests == []


@requires_sdk
def test_key_is_never_written(api_key, tiny, tmp_path, capsys):
    with FakeAnthropicServer(default="A context.", api_key=KEY) as server:
        overrides = [f"dataset.path={tiny}", "dataset.name=tiny", "embedder=fake", "chunker.size=60"]
        overrides += ["generator=anthropic", "generator.model=claude-test", f"generator.base_url={server.base_url}"]
        overrides += [f"out={tmp_path / 'ctx.jsonl'}", f"cache_dir={tmp_path / 'cache'}"]
        assert main(overrides) == 0
    printed = capsys.readouterr()
    assert "wrote 3 contexts" in printed.out
    written = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not any(KEY.encode() in blob for blob in written)
    assert KEY not in printed.out + printed.err


@requires_sdk
@pytest.mark.parametrize(
    ("key", "reply", "error"),
    [
        ("wrong-key", "x", "the Anthropic API refused ANTHROPIC_API_KEY \\(401"),
        (KEY, Reply.error(404), "check generator.model \\('claude-test'\\)"),
    ],
)
def test_api_errors_are_one_clear_line(monkeypatch, tiny, tmp_path, key, reply, error):
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    with FakeAnthropicServer(default=reply, api_key=KEY) as server, pytest.raises(ConfigError, match=error):
        contextualize(anthropic_settings(tiny, tmp_path, server))


@requires_sdk
def test_missing_key_is_a_config_error(monkeypatch, tiny, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with FakeAnthropicServer() as server, pytest.raises(ConfigError, match="needs the ANTHROPIC_API_KEY"):
        contextualize(anthropic_settings(tiny, tmp_path, server))
