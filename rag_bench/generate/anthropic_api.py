"""``generator=anthropic``: the Anthropic Messages API through the official ``anthropic`` SDK.

The SDK is an optional extra, imported only here. The key comes from ``ANTHROPIC_API_KEY``
alone and is never stored, logged or written. Failed requests (408/409/429/5xx,
connection errors) are retried by the SDK ``max_retries`` times with backoff.
"""

from __future__ import annotations

from rag_bench.generate.base import Answer
from rag_bench.generate.prompt import Prompt
from rag_bench.generate.settings import AnthropicGeneratorConfig
from rag_bench.remote.anthropic import MessagesClient


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
