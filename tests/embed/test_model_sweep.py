"""Comparing models as a sweep: ``rag-bench -m embedder=local,openai,cohere`` against the fake servers, each text
embedded once per model (checked at the servers and in the cache), and the command's one-line errors."""

import os
import subprocess
import sys

import pandas as pd
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.embed.store import stored_keys
from rag_bench.testing.cohere_server import FakeCohereServer
from rag_bench.testing.openai_server import FakeOpenAIServer

OPENAI_KEY, COHERE_KEY = "sk-sweep-0a1b", "co-sweep-2c3d"


def rag_bench(*args, env, cwd):
    command = [sys.executable, "-m", "rag_bench", *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture
def servers(tmp_path):
    with FakeOpenAIServer(api_key=OPENAI_KEY) as openai, FakeCohereServer(api_key=COHERE_KEY) as cohere:
        env = {
            **os.environ,
            "OPENAI_API_KEY": OPENAI_KEY,
            "CO_API_KEY": COHERE_KEY,
            "OPENAI_BASE_URL": openai.url + "/v1",  # the official clients' own variables
            "CO_API_URL": cohere.url,
            "RAG_BENCH_CACHE": str(tmp_path / "cache"),
        }
        yield openai, cohere, env


@pytest.mark.slow
def test_a_model_sweep_embeds_each_text_once_per_model_and_reports_cost_and_size(servers, tmp_path):
    openai, cohere, env = servers
    sweep = ["-m", "dataset=annual-report", "retrieval=dense", "embedder=local,openai,cohere"]
    done = rag_bench(*sweep, f"hydra.sweep.dir={tmp_path / 'a'}", env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(tmp_path / "a" / "summary.csv").set_index("embedder")
    chunks, questions = int(table.loc["openai", "chunks"]), int(table.loc["openai", "n_questions"])
    for server in (openai, cohere):
        sent = [t for r in server.requests for t in r.texts]
        assert len(sent) == len(set(sent)) == chunks + questions  # each text once for this model
    namespaces = {
        p.relative_to(tmp_path / "cache" / "vectors").parent.as_posix()
        for p in (tmp_path / "cache" / "vectors").glob("*/*/*/??")
    }
    # vectors by provider, server, model, dimension and input type: three models, two input types each
    assert {n.split("/")[0].split("@")[0].split("--")[0] for n in namespaces} >= {"openai", "cohere"}
    assert sum(n.endswith("/document") for n in namespaces) == 3 and sum(n.endswith("/query") for n in namespaces) == 3
    assert len(stored_keys(DiskCache(tmp_path / "cache"))) == 3 * (chunks + questions)
    # cost per 1,000 questions: questions' tokens (UTF-8 bytes / 3 + 1) x price; the index's once
    assert table.loc["openai", "cost_per_1k_questions"] > 0 and pd.isna(table.loc["local", "cost_per_1k_questions"])
    assert table.loc["cohere", "cost_per_1k_questions"] == pytest.approx(
        6 * table.loc["openai", "cost_per_1k_questions"]
    )
    assert (
        table.loc["openai", "index_bytes"] == chunks * 1536 * 4
        and table.loc["local", "index_bytes"] == chunks * 384 * 4
    )
    report = (tmp_path / "a" / "report.md").read_text()
    assert "cost per 1,000 questions (USD)" in report and "index size" in report and "embedding s" in report
    for path in (p for p in tmp_path.rglob("*") if p.is_file()):  # run folders, reports, the cache
        data = path.read_bytes()
        assert OPENAI_KEY.encode() not in data and COHERE_KEY.encode() not in data, path
    before = len(openai.requests) + len(cohere.requests)
    again = rag_bench(*sweep, f"hydra.sweep.dir={tmp_path / 'b'}", env=env, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(openai.requests) + len(cohere.requests) == before  # a second sweep embeds nothing


@pytest.mark.slow
@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ["embedder=openai", "embedder.dimension=300", "embedder.model=text-embedding-ada-002"],
            "does not support specifying dimensions; embedder.dimension is not a size this model takes",
        ),
        (["embedder=openai", "embedder.model=no-such-model"], "the server does not serve embedder.model"),
        (["embedder=cohere", "embedder.dimension=300"], "embedder.dimension (300) is not a size embed-v4.0 takes"),
        (["embedder=onnx", "embedder.path=."], "embedder.path (.) holds no model.onnx"),
    ],
)
def test_a_refused_setting_is_one_line_and_exit_2(servers, tmp_path, overrides, message):
    _, _, env = servers
    done = rag_bench(
        "dataset=annual-report",
        "retrieval=dense",
        "quiet=true",
        *overrides,
        f"hydra.run.dir={tmp_path / 'r'}",
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("rag-bench: error: ") and message in done.stderr
    assert OPENAI_KEY not in done.stderr and COHERE_KEY not in done.stderr


@pytest.mark.slow
def test_a_wrong_key_is_one_line_naming_the_variable(servers, tmp_path):
    _, _, env = servers
    env = {**env, "OPENAI_API_KEY": "sk-wrong-ffff"}
    done = rag_bench(
        "dataset=annual-report",
        "retrieval=dense",
        "quiet=true",
        "embedder=openai",
        f"hydra.run.dir={tmp_path / 'r'}",
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "refused the key in OPENAI_API_KEY" in done.stderr and "sk-wrong-ffff" not in done.stderr
