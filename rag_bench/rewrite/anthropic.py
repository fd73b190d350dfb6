"""``generator=anthropic``: rewrites from the Messages API through the official SDK (optional extra ``generate``).

One request per (question, kind) (``prompt.py``). The instructions and the knowledge base's document titles
form a system prompt shared by every request, marked with ``cache_control`` so the API bills it at the
cache-read price after the first request (the API caches a prefix only above a model-dependent minimum
length, 1,024 to 4,096 tokens; below it the mark is ignored). Replies are kept in the disk cache by (model,
settings, prompt, question). The key comes from ``ANTHROPIC_API_KEY`` alone and is never written.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Dataset, Question
from rag_bench.remote.anthropic import MessagesClient
from rag_bench.remote.prices import model_price
from rag_bench.remote.settings import ApiSettings
from rag_bench.rewrite.prompt import AskedRewriter, user_prompt


@dataclass
class AnthropicRewriterConfig(ApiSettings):
    """The Messages API (``ApiSettings``: base_url, max_retries, timeout_s; the SDK does its own backoff)."""

    name: str = "anthropic"
    model: str | None = "claude-haiku-4-5"
    max_tokens: int = 400  # reply limit
    temperature: float | None = None  # null = the API's default
    titles: int = 200  # document titles given as the knowledge base's description (0 = none)
    max_retries: int = 2  # SDK retries of 408/409/429/5xx and connection errors
    input_price: float | None = None  # USD per million input tokens; null = configs/prices.yaml
    output_price: float | None = None  # USD per million output tokens; null = the table's

    def __post_init__(self) -> None:
        self.check_api("generator")
        check_titles(self)
        if self.price_per_million is not None:
            raise ConfigError(
                "generator.price_per_million does not apply to Anthropic rewrites (input and output tokens are "
                "priced apart); set generator.input_price and generator.output_price instead"
            )


def check_titles(cfg) -> None:
    if cfg.max_tokens < 1 or cfg.titles < 0:
        raise ConfigError(
            f"generator.max_tokens ({cfg.max_tokens}) must be at least 1 and generator.titles ({cfg.titles}) "
            "not negative"
        )


class AnthropicRewriter(AskedRewriter):
    """Rewrites of every kind, one Messages API call per (question, kind); replies cached on disk."""

    def __init__(self, cfg: AnthropicRewriterConfig, dataset: Dataset, cache: DiskCache) -> None:
        self._api = MessagesClient(cfg, "or use generator=offline (keywords, decompose) or generator=replay")
        super().__init__(cfg, dataset, cache)
        self.price = model_price(cfg.model, cfg.input_price, cfg.output_price)

    def request(self, question: Question, kind: str, limit: int) -> dict:
        """The Messages API request for one rewrite: the system prompt carries ``cache_control``."""
        body = {
            "model": self.cfg.model,
            "max_tokens": self.cfg.max_tokens,
            "system": [{"type": "text", "text": self.system, "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": user_prompt(question, kind, limit)}],
        }
        return body if self.cfg.temperature is None else {**body, "temperature": self.cfg.temperature}

    def reply_key(self, question: Question, kind: str, limit: int) -> str:
        return digest("anthropic-rewrite", self.request(question, kind, limit))

    def ask(self, question: Question, kind: str, limit: int) -> str:
        body = self.request(question, kind, limit)
        message = self._api.create(f"generator.model ({self.cfg.model!r}) and generator.max_tokens", **body)
        self.usage.add(message.usage)
        return "".join(b.text for b in message.content if b.type == "text")

    def close(self) -> None:
        self._api.close()
