"""``generator=openai``: contexts from any OpenAI-compatible chat model (OpenAI, Azure OpenAI, Ollama, vLLM,
LM Studio, a LiteLLM proxy) through the official ``openai`` client (``remote/chat.py``).

One request per chunk as for Anthropic (``prompt.py``): the instructions and the whole document first, so
a provider that caches prompt prefixes (OpenAI, automatically) reads the document from its cache for every
chunk after the first; its cached tokens count as ``cache_read``. Replies are cached on disk by server,
model, settings, prompt, document and chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag_bench.contextualize.base import ContextGeneratorConfig
from rag_bench.contextualize.prompt import ASK, INSTRUCTIONS, AskedContexts, chunk_ask, document_block
from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.types import Chunk, Document
from rag_bench.remote.chat import ChatClient, ChatSettings


@dataclass
class OpenAIContextConfig(ChatSettings, ContextGeneratorConfig):
    """An OpenAI-compatible chat model: the whole document first, one short context per chunk."""

    name: str = "openai"
    max_tokens: int = 160  # reply limit (contexts are asked to be 50 to 100 tokens)


class OpenAIContexts(AskedContexts):
    """One chat completion per chunk; the document is the prompt's stable prefix."""

    def __init__(self, cfg: OpenAIContextConfig, documents: Sequence[Document], cache: DiskCache) -> None:
        self.chat = ChatClient(cfg, "or use generator=offline")
        super().__init__(cfg, cache)
        self.key = digest("openai-context", self.chat.key, INSTRUCTIONS, ASK)
        self.concurrency = cfg.concurrency

    @property
    def usage(self) -> dict[str, int]:
        return self.chat.usage()

    def ask(self, doc: Document, chunk: Chunk) -> str:
        return " ".join(self.chat.reply(INSTRUCTIONS, f"{document_block(doc)}\n\n{chunk_ask(chunk)}").text.split())

    def close(self) -> None:
        self.chat.close()
