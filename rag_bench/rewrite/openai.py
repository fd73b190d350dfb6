"""``generator=openai``: rewrites from any OpenAI-compatible chat model (OpenAI, Azure OpenAI, Ollama, vLLM, LM
Studio, a LiteLLM proxy) through the official ``openai`` client (``remote/chat.py``).

One request per (question, kind) as for Anthropic (``prompt.py``): the instructions and the document titles
first, the prefix OpenAI caches on its own (prompts of 1,024 tokens or more); its cached tokens count as
``cache_read``. Replies are cached on disk by server, model, settings and prompt.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.types import Dataset, Question
from rag_bench.remote.chat import ChatClient, ChatSettings, chat_price
from rag_bench.rewrite.anthropic import check_titles
from rag_bench.rewrite.prompt import AskedRewriter, user_prompt


@dataclass
class OpenAIRewriterConfig(ChatSettings):
    """An OpenAI-compatible chat model: instructions and titles first, one request per (question, kind)."""

    name: str = "openai"
    max_tokens: int = 400  # reply limit
    titles: int = 200  # document titles given as the knowledge base's description (0 = none)

    def __post_init__(self) -> None:
        ChatSettings.__post_init__(self)
        check_titles(self)


class OpenAIRewriter(AskedRewriter):
    """Rewrites of every kind, one chat completion per (question, kind); replies cached on disk."""

    def __init__(self, cfg: OpenAIRewriterConfig, dataset: Dataset, cache: DiskCache) -> None:
        self.chat = ChatClient(cfg, "or use generator=offline (keywords, decompose) or generator=replay")
        super().__init__(cfg, dataset, cache)
        self.price = chat_price(cfg)
        self.concurrency = cfg.concurrency

    def reply_key(self, question: Question, kind: str, limit: int) -> str:
        return digest("openai-rewrite", self.chat.key, self.system, user_prompt(question, kind, limit))

    def ask(self, question: Question, kind: str, limit: int) -> str:
        reply = self.chat.reply(self.system, user_prompt(question, kind, limit))
        self.usage.add_counts(reply.tokens)
        return reply.text

    def close(self) -> None:
        self.chat.close()
