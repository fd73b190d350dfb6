"""Every generator of the registry keeps the protocol: a name, a key, an Answer per prompt."""

import json

import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Chunk, Question
from rag_bench.generate.base import Answer
from rag_bench.generate.prompt import build_prompt
from rag_bench.generate.registry import GENERATORS
from rag_bench.testing.anthropic_server import FakeAnthropicServer
from rag_bench.testing.openai_server import FakeOpenAIServer

PROMPT = build_prompt(
    Question("q1", "What is the capital of France?"),
    [Chunk("a", 0, 31, "The capital of France is Paris.")],
)
EXPECTED = '"The capital of France is Paris." [1]'


@pytest.fixture(params=sorted(GENERATORS))
def generator(request, tmp_path, monkeypatch):
    name = request.param
    if name == "extractive":
        built = GENERATORS.build(GENERATORS.settings("extractive"))
        yield built
    elif name == "replay":
        path = tmp_path / "answers.jsonl"
        path.write_text(json.dumps({"question_id": "q1", "answer": EXPECTED}) + "\n")
        built = GENERATORS.build(GENERATORS.settings("replay", path=str(path)))
        yield built
    elif name == "openai":
        pytest.importorskip("openai")
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        with FakeOpenAIServer(chat=EXPECTED) as server:
            built = GENERATORS.build(GENERATORS.settings("openai", base_url=f"{server.url}/v1", timeout_s=5.0))
            yield built
    else:
        pytest.importorskip("anthropic")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        with FakeAnthropicServer(default=EXPECTED) as server:
            built = GENERATORS.build(
                GENERATORS.settings("anthropic", model="m", base_url=server.base_url, timeout_s=5.0)
            )
            yield built
    built.close()


def test_protocol(generator):
    answer = generator.answer(PROMPT)
    assert isinstance(generator.name, str) and generator.name in GENERATORS
    assert isinstance(generator.key, str) and generator.key.startswith(generator.name)
    assert isinstance(answer, Answer)
    assert (answer.text, answer.citations, answer.refused) == (EXPECTED, (1,), False)


def test_unknown_name_and_replay_without_a_file():
    with pytest.raises(
        ConfigError, match="generator.name \\('gpt'\\) must be one of: anthropic, extractive, openai, replay"
    ):
        GENERATORS.settings("gpt")
    with pytest.raises(ConfigError, match="generator=replay needs the answers file"):
        GENERATORS.build(GENERATORS.settings("replay"))
