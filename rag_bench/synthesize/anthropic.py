"""``generator=anthropic``: candidate questions from the Messages API, the document as a cached prefix.

One request per (document, category) (``prompt.py``): the document block carries ``cache_control``, so
every category after the first reads it from the prompt cache. Replies are kept in the disk cache, so a
rerun sends nothing. The estimated cost is ``remote/prices.py``'s formula with ``configs/prices.yaml``
(None for a model not listed there).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Document
from rag_bench.remote.anthropic import MessagesClient
from rag_bench.remote.prices import llm_cost, model_price
from rag_bench.remote.settings import ApiSettings
from rag_bench.synthesize.candidates import SynthGeneratorConfig
from rag_bench.synthesize.prompt import ASK, CATEGORIES, INSTRUCTIONS, AskedCandidates, document_block

USAGE = {"input": "input_tokens", "output": "output_tokens"}
CACHE_USAGE = {"cache_write": "cache_creation_input_tokens", "cache_read": "cache_read_input_tokens"}


def check_synth(cfg) -> None:
    """What every LLM generator's synthesize settings must hold."""
    for name in ("max_tokens", "per_request"):
        if getattr(cfg, name) < 1:
            raise ConfigError(f"generator.{name} ({getattr(cfg, name)}) must be at least 1")
    if not cfg.categories:
        raise ConfigError("generator.categories is empty; give at least one category: instruction")


@dataclass
class AnthropicSynthConfig(ApiSettings, SynthGeneratorConfig):
    """The Messages API: each document a cached prompt prefix, one request per category."""

    name: str = "anthropic"
    model: str | None = "claude-haiku-4-5"
    max_tokens: int = 1024  # reply limit per request
    per_request: int = 3  # questions asked for per (document, category)
    categories: dict[str, str] = field(default_factory=lambda: dict(CATEGORIES))  # category -> what to ask for
    max_retries: int = 2  # SDK retries of 408/409/429/5xx and connection errors

    def __post_init__(self) -> None:
        self.check_api("generator")
        check_synth(self)


class AnthropicCandidates(AskedCandidates):
    """Asks for ``per_request`` questions per document and category."""

    name = "anthropic"

    def __init__(self, cfg, documents, cache: DiskCache) -> None:
        self._api = MessagesClient(cfg, "or use generator=replay with candidates written elsewhere")
        super().__init__(cfg, cache)
        self.key = digest("synthesize", cfg.model, cfg.max_tokens, cfg.per_request, INSTRUCTIONS, ASK)
        self.usage = {"requests": 0, "input": 0, "cache_write": 0, "cache_read": 0, "output": 0}
        self.settings = {
            "name": "anthropic",
            "model": cfg.model,
            "max_tokens": cfg.max_tokens,
            "per_request": cfg.per_request,
            "prompt": self.key[:16],
        }

    @property
    def cost_usd(self) -> float | None:
        return llm_cost(self.usage, model_price(self.cfg.model))

    def request(self, doc: Document, kind: str) -> dict:
        """The Messages API request body: the document block carries ``cache_control``."""
        document = {"type": "text", "text": document_block(doc), "cache_control": {"type": "ephemeral"}}
        ask = {"type": "text", "text": ASK.format(n=self.cfg.per_request, kind=kind)}
        return {
            "model": self.cfg.model,
            "max_tokens": self.cfg.max_tokens,
            "system": INSTRUCTIONS,
            "messages": [{"role": "user", "content": [document, ask]}],
        }

    def ask(self, doc: Document, kind: str) -> str:
        message = self._api.create(f"generator.model ({self.cfg.model!r})", **self.request(doc, kind))
        self.usage["requests"] += 1
        for name, attr in (USAGE | CACHE_USAGE).items():
            self.usage[name] += getattr(message.usage, attr, 0) or 0
        return "".join(b.text for b in message.content if b.type == "text")

    def close(self) -> None:
        self._api.close()
