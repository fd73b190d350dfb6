"""The Anthropic context generator: one Messages API call per chunk, the document a cached prompt prefix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag_bench.contextualize.base import ContextGeneratorConfig
from rag_bench.contextualize.prompt import ASK, INSTRUCTIONS, AskedContexts, chunk_ask, document_block
from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Chunk, Document
from rag_bench.remote.anthropic import MessagesClient
from rag_bench.remote.settings import ApiSettings


@dataclass
class AnthropicContextConfig(ApiSettings, ContextGeneratorConfig):
    """The Messages API: the whole document in a cached prompt prefix, one short context per chunk."""

    name: str = "anthropic"
    model: str | None = "claude-haiku-4-5"
    max_tokens: int = 160  # reply limit (contexts are asked to be 50 to 100 tokens)
    max_retries: int = 2  # SDK retries of 408/409/429/5xx and connection errors

    def __post_init__(self) -> None:
        self.check_api("generator")
        if self.max_tokens < 1:
            raise ConfigError(f"generator.max_tokens ({self.max_tokens}) must be at least 1")


class AnthropicContexts(AskedContexts):
    """One Messages API call per chunk; the document is a cached prompt prefix shared by its chunks.

    Replies are kept in the disk cache (``prompt.py``). The key comes from ``ANTHROPIC_API_KEY`` alone and
    is never written.
    """

    def __init__(self, cfg: AnthropicContextConfig, documents: Sequence[Document], cache: DiskCache) -> None:
        self._api = MessagesClient(cfg, "or use generator=offline")
        super().__init__(cfg, cache)
        self.key = digest("anthropic-context", cfg.model, cfg.max_tokens, INSTRUCTIONS, ASK)
        self.usage = {"input": 0, "cache_write": 0, "cache_read": 0, "output": 0}

    def request(self, doc: Document, chunk: Chunk) -> dict:
        """The Messages API request body for one chunk: the document block carries ``cache_control``."""
        document = {"type": "text", "text": document_block(doc), "cache_control": {"type": "ephemeral"}}
        return {
            "model": self.cfg.model,
            "max_tokens": self.cfg.max_tokens,
            "system": INSTRUCTIONS,
            "messages": [{"role": "user", "content": [document, {"type": "text", "text": chunk_ask(chunk)}]}],
        }

    def ask(self, doc: Document, chunk: Chunk) -> str:
        message = self._api.create(f"generator.model ({self.cfg.model!r})", **self.request(doc, chunk))
        usage = message.usage
        for name, attr in (("input", "input_tokens"), ("output", "output_tokens")):
            self.usage[name] += getattr(usage, attr, 0) or 0
        self.usage["cache_write"] += getattr(usage, "cache_creation_input_tokens", 0) or 0
        self.usage["cache_read"] += getattr(usage, "cache_read_input_tokens", 0) or 0
        return " ".join("".join(b.text for b in message.content if b.type == "text").split())

    def close(self) -> None:
        self._api.close()
