"""The anthropic generator with the real ``anthropic`` client against the fake server on 127.0.0.1."""

import pytest

pytest.importorskip("anthropic")

from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.generate.anthropic import AnthropicGenerator  # noqa: E402
from rag_bench.generate.cli import main  # noqa: E402
from rag_bench.generate.outputs import write_generation  # noqa: E402
from rag_bench.generate.prompt import INSTRUCTIONS, REFUSAL  # noqa: E402
from rag_bench.generate.registry import GENERATORS  # noqa: E402
from rag_bench.generate.run import check_generation  # noqa: E402
from rag_bench.generate.settings import GenerateConfig
from rag_bench.testing.anthropic_server import FakeAnthropicServer, Reply

KEY = "sk-ant-fake-KEY-0123456789abcdef"
GOOD = 'It is "The capital of France is Paris." [1]'


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    return KEY


def _settings(server, tmp_path, **generator):
    options = {"name": "anthropic", "model": "claude-test", "base_url": server.base_url, "timeout_s": 5.0, **generator}
    return GenerateConfig(
        generator=GENERATORS.settings(options.pop("name"), **options), cache_dir=str(tmp_path / "cache")
    )


def _by_question(replies):
    """A responder that answers by a word of the question."""

    def respond(body):
        prompt = body["messages"][0]["content"]
        return next(text for word, text in replies.items() if word in prompt.rsplit("Question:", 1)[1])

    return respond


@pytest.mark.parametrize(
    ("reply", "passed", "attribution", "citations_ok", "refused"),
    [
        (GOOD, True, None, True, False),
        (REFUSAL, False, "refusal", True, True),
        ("Paris [4]", False, "generation", False, False),  # two passages: [4] points at nothing
    ],
)
def test_answer_refusal_and_bad_citation(
    api_key, tiny_run, tmp_path, reply, passed, attribution, citations_ok, refused
):
    respond = _by_question({"capital": reply, "bananas": REFUSAL, "Hamlet": REFUSAL})
    with FakeAnthropicServer(default=respond, api_key=KEY) as server:
        result = check_generation(tiny_run, _settings(server, tmp_path))
    q1, q2, q3 = result.results
    assert (q1.outcome.passed, q1.outcome.attribution) == (passed, attribution)
    assert (q1.checks.citations_ok, q1.answer.refused) == (citations_ok, refused)
    assert q1.answer.text == reply
    # q2: evidence not retrieved, refused rightly (still a retrieval failure); q3: unanswerable, refused
    assert (q2.checks.refusal_ok, q2.outcome.attribution) == (True, "retrieval")
    assert (q3.checks.refusal_ok, q3.outcome.passed) == (True, True)


def test_request_carries_model_prompt_and_key(api_key, tiny_run, tmp_path):
    with FakeAnthropicServer(default=GOOD) as server:
        result = check_generation(tiny_run, _settings(server, tmp_path, max_tokens=77))
    first = server.requests[0]
    assert (first.method, first.path) == ("POST", "/v1/messages")
    assert first.body["model"] == "claude-test" and first.body["max_tokens"] == 77
    assert first.body["system"] == INSTRUCTIONS
    assert first.body["messages"] == [{"role": "user", "content": result.results[0].prompt.user}]
    assert "temperature" not in first.body  # null: not sent (API version 2026-10-21 rejects it)
    assert KEY in (first.headers.get("x-api-key", ""), first.headers.get("authorization", "").removeprefix("Bearer "))
    assert result.results[0].answer.output_tokens == 9  # the fake counts the reply's whitespace-separated words


def test_temperature_is_sent_when_set(api_key, tiny_run, tmp_path):
    with FakeAnthropicServer(default=GOOD) as server:
        check_generation(tiny_run, _settings(server, tmp_path, temperature=0.0))
    assert all(r.body["temperature"] == 0.0 for r in server.requests)


def test_overloaded_and_server_error_are_retried(api_key, tiny_run, tmp_path):
    with FakeAnthropicServer([Reply.error(529), Reply.error(500), GOOD], default=REFUSAL) as server:
        result = check_generation(tiny_run, _settings(server, tmp_path, max_retries=2))
    assert result.results[0].answer.text == GOOD and result.results[0].outcome.passed
    assert len(server.requests) == 3 + 2  # q1 took three tries; q2 and q3 one each
    assert [r.headers["x-stainless-retry-count"] for r in server.requests[:3]] == ["0", "1", "2"]


def test_retries_are_bounded(api_key, tiny_run, tmp_path):
    failed = r"failed \(529: fake overloaded_error \(529\)\) after 1 retries"
    with FakeAnthropicServer(default=Reply.error(529)) as server, pytest.raises(ServiceError, match=failed):
        check_generation(tiny_run, _settings(server, tmp_path, max_retries=1))
    assert len(server.requests) == 2


def test_rejected_key_and_missing_key_are_config_errors(api_key, tiny_run, tmp_path, monkeypatch):
    with FakeAnthropicServer(default=GOOD, api_key="another-key") as server:
        with pytest.raises(ConfigError, match="refused ANTHROPIC_API_KEY \\(401"):
            check_generation(tiny_run, _settings(server, tmp_path))
        monkeypatch.delenv("ANTHROPIC_API_KEY")
        with pytest.raises(ConfigError) as info:
            AnthropicGenerator(_settings(server, tmp_path).generator)
    assert str(info.value) == (
        "generator=anthropic needs the ANTHROPIC_API_KEY environment variable; set it, "
        "or choose generator=extractive or generator=replay"
    )
    assert len(server.requests) == 1


def test_rerun_is_served_from_the_cache(api_key, tiny_run, tmp_path):
    with FakeAnthropicServer(default=GOOD) as server:
        first = check_generation(tiny_run, _settings(server, tmp_path))
        assert len(server.requests) == 3 and first.generated == 3
        again = check_generation(tiny_run, _settings(server, tmp_path))
        assert len(server.requests) == 3  # no call at all
        assert again.generated == 0 and [r.answer for r in again.results] == [r.answer for r in first.results]
        check_generation(tiny_run, _settings(server, tmp_path, model="claude-other"))
        assert len(server.requests) == 6  # another model: answered again


def test_key_is_never_written(api_key, tiny_run, tmp_path, capsys):
    out = tmp_path / "out"
    respond = _by_question({"capital": GOOD, "bananas": "Yellow [9]", "Hamlet": REFUSAL})
    with FakeAnthropicServer(default=respond) as server:
        code = main(
            [
                str(tiny_run),
                "--out",
                str(out),
                "generator=anthropic",
                f"generator.base_url={server.base_url}",
                f"cache_dir={tmp_path / 'cache'}",
                "generator.model=claude-test",
            ]
        )
        write_generation(check_generation(tiny_run, _settings(server, tmp_path)), tmp_path / "again")
    assert code == 0
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {"generation.json", "generation_per_question.csv", "generation.md"} <= {p.name for p in written}
    assert len([p for p in written if "answers" in p.parts]) == 3  # cached answers are scanned too
    captured = capsys.readouterr()
    for blob in [p.read_bytes() for p in written] + [captured.out.encode(), captured.err.encode()]:
        assert KEY.encode() not in blob
        assert b"sk-ant" not in blob
