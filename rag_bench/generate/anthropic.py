"""``generator=anthropic``: the Anthropic Messages API through the official ``anthropic`` SDK.

The SDK is an optional extra, imported only here. The key comes from ``ANTHROPIC_API_KEY``
alone and is never stored, logged or written. Failed requests (408/409/429/5xx,
connection errors) are retried by the SDK ``max_retries`` times with backoff.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.generate.base import Answer, GeneratorConfig
from rag_bench.generate.prompt import Prompt
from rag_bench.remote.anthropic import MessagesClient
from rag_bench.remote.settings import ApiSettings


@dataclass
class AnthropicGeneratorConfig(ApiSettings, GeneratorConfig):
    """The Anthropic Messages API through the official SDK (ANTHROPIC_API_KEY)."""

    name: str = "anthropic"
    model: str | None = "claude-haiku-4-5"
    max_tokens: int = 512
    temperature: float | None = None  # null = not sent (API version 2026-10-21 rejects it)
    max_retries: int = 2  # SDK retries of 408/409/429/5xx and connection errors

    def __post_init__(self) -> None:
        self.check_api("generator")
        if self.max_tokens < 1:
            raise ConfigError(f"generator.max_tokens ({self.max_tokens}) must be at least 1")
        if not 0 <= self.max_retries <= 10:
            raise ConfigError(f"generator.max_retries ({self.max_retries}) must lie between 0 and 10")


def build(cfg: AnthropicGeneratorConfig) -> AnthropicGenerator:
    """The generator ``generator=anthropic`` names."""
    return AnthropicGenerator(cfg)


class AnthropicGenerator:
    """Answers with one Messages API call per prompt."""

    name = "anthropic"

    def __init__(self, cfg: AnthropicGeneratorConfig) -> None:
        self._api = MessagesClient(cfg, "or choose generator=extractive or generator=replay")
        self.cfg = cfg
        self.key = f"anthropic/{cfg.model}/max_tokens={cfg.max_tokens}/temperature={cfg.temperature!r}"

    def answer(self, prompt: Prompt) -> Answer:
        extra = {} if self.cfg.temperature is None else {"extra_body": {"temperature": self.cfg.temperature}}
        message = self._api.create(
            f"generator.model ({self.cfg.model!r}), generator.max_tokens and generator.temperature",
            model=self.cfg.model,
            max_tokens=self.cfg.max_tokens,
            system=prompt.system,
            messages=[{"role": "user", "content": prompt.user}],
            **extra,
        )
        text = "".join(block.text for block in message.content if block.type == "text")
        usage = message.usage
        return Answer.from_text(text.strip(), usage.input_tokens or 0, usage.output_tokens or 0)

    def close(self) -> None:
        self._api.close()
