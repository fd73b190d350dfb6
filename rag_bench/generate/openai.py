"""``generator=openai``: answers from any OpenAI-compatible chat model (OpenAI, Azure OpenAI, Ollama, vLLM, LM
Studio, a LiteLLM proxy) through the official ``openai`` client (``remote/chat.py``: the key from the variable
``api_key_env`` names, retries with Retry-After, pacing, refusals naming the setting).

The grounded prompt's instructions are the system message, the passages and the question the user message;
answers are cached by ``run.py`` under this generator's ``key`` (server, model, settings) and the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_bench.generate.base import Answer, GeneratorConfig
from rag_bench.generate.prompt import Prompt
from rag_bench.remote.chat import ChatClient, ChatSettings


@dataclass
class OpenAIGeneratorConfig(ChatSettings, GeneratorConfig):
    """An OpenAI-compatible chat model (the key from ``api_key_env``)."""

    name: str = "openai"


def build(cfg: OpenAIGeneratorConfig) -> OpenAIGenerator:
    """The generator ``generator=openai`` names."""
    return OpenAIGenerator(cfg)


class OpenAIGenerator:
    """Answers with one chat completion per prompt."""

    name = "openai"

    def __init__(self, cfg: OpenAIGeneratorConfig) -> None:
        self.chat = ChatClient(cfg, "or choose generator=extractive or generator=replay")
        self.key = f"openai/{cfg.model}/{self.chat.key}"
        self.concurrency = cfg.concurrency  # questions answered at once

    def answer(self, prompt: Prompt) -> Answer:
        reply = self.chat.reply(prompt.system, prompt.user)
        tokens = reply.tokens
        return Answer.from_text(reply.text, tokens["input"], tokens["output"], tokens["cache_read"])

    def close(self) -> None:
        self.chat.close()
