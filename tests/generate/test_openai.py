"""check-generation generator=openai: the real ``openai`` client against the fake OpenAI-compatible server."""

import json
import re

import pytest

from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.generate.cli import main
from rag_bench.generate.prompt import INSTRUCTIONS, REFUSAL
from rag_bench.generate.registry import GENERATORS
from rag_bench.generate.run import check_generation
from rag_bench.generate.settings import GenerateConfig
from rag_bench.testing.openai_server import FakeOpenAIServer

pytest.importorskip("openai")

KEY = "sk-fake-GENERATE-openai-5150"
ROUTE = "/v1/chat/completions"
GOOD = 'It is "The capital of France is Paris." [1]'


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def settings(server, tmp_path, **generator):
    options = {"model": "llama3.1", "base_url": f"{server.url}/v1", "timeout_s": 5.0, "backoff_s": 0.01} | {
        "concurrency": 1,  # requests in a known order
        **generator,
    }
    return GenerateConfig(generator=GENERATORS.settings("openai", **options), cache_dir=str(tmp_path / "cache"))


def by_question(body: dict) -> str:
    question = body["messages"][1]["content"].rsplit("Question:", 1)[1]
    return GOOD if "capital" in question else "Yellow [9]" if "bananas" in question else REFUSAL


def test_answers_are_checked_and_tokens_counted(api_key, tiny_run, tmp_path):
    with FakeOpenAIServer(api_key=KEY, chat=by_question, cache_min=8, cache_step=8) as server:
        result = check_generation(tiny_run, settings(server, tmp_path, max_tokens=77))
        again = check_generation(tiny_run, settings(server, tmp_path, max_tokens=77))
        assert len(server.received(ROUTE)) == 3 and again.generated == 0  # the rerun: every answer cached
    first = server.received(ROUTE)[0].body
    assert (first["model"], first["max_tokens"]) == ("llama3.1", 77)
    assert first["messages"] == [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": result.results[0].prompt.user},
    ]
    q1, q2, q3 = result.results
    assert (q1.answer.text, q1.outcome.passed, q1.answer.citations) == (GOOD, True, (1,))
    assert (q2.checks.citations_ok, q2.outcome.attribution) == (False, "retrieval")  # [9]: no such passage
    assert (q3.answer.refused, q3.outcome.passed) == (True, True)
    # by the fake's rule (a word or a mark): It is " The capital of France is Paris . " [ 1 ] = 14 tokens
    assert q1.answer.output_tokens == len(re.findall(r"\w+|[^\w\s]", GOOD)) == 14
    # the instructions (the system message, first) are shared by all three prompts: q2 and q3 read them cached
    assert q1.answer.cached_tokens == 0 and q2.answer.cached_tokens > 0 and q3.answer.cached_tokens > 0
    body = " ".join(m["content"] for m in first["messages"])
    assert q1.answer.input_tokens == len(re.findall(r"\w+|[^\w\s]", body))


def test_the_command_writes_its_outputs_and_never_the_key(api_key, tiny_run, tmp_path, capsys):
    out = tmp_path / "out"
    with FakeOpenAIServer(api_key=KEY, chat=by_question) as server:
        code = main(
            [str(tiny_run), "--out", str(out), "generator=openai", f"generator.base_url={server.url}/v1"]
            + ["generator.model=gpt-4o-mini", f"cache_dir={tmp_path / 'cache'}"]
        )
    assert code == 0
    summary = json.loads((out / "generation.json").read_text(encoding="utf-8"))
    assert summary["counts"]["generated"] == 3 and summary["counts"]["passed"] == 2
    assert summary["settings"]["generator"]["name"] == "openai"
    written = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not any(KEY.encode() in blob for blob in written)


def test_unknown_model_and_server_down_are_one_clear_error(api_key, tiny_run, tmp_path):
    with FakeOpenAIServer(api_key=KEY, chat=by_question) as server, pytest.raises(ConfigError, match="does not serve"):
        check_generation(tiny_run, settings(server, tmp_path, model="gpt-9"))
    with pytest.raises(ServiceError, match=r"connection failed .*check generator\.base_url .*generator=extractive"):
        check_generation(tiny_run, settings(server, tmp_path, max_retries=1))


def test_questions_are_answered_concurrently_in_order(api_key, tiny_run, tmp_path):
    with FakeOpenAIServer(api_key=KEY, chat=by_question, delay_s=0.3) as server:
        result = check_generation(tiny_run, settings(server, tmp_path, concurrency=3))
    assert server.max_in_flight == 3
    assert [r.answer.text for r in result.results] == [GOOD, "Yellow [9]", REFUSAL]
