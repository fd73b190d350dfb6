"""``generator=openai``: candidate questions from any OpenAI-compatible chat model (OpenAI, Azure OpenAI,
Ollama, vLLM, LM Studio, a LiteLLM proxy) through the official ``openai`` client (``remote/chat.py``).

One request per (document, category) as for Anthropic (``prompt.py``): the instructions, then the
document, then the ask, so a provider that caches prompt prefixes (OpenAI, automatically) reads the
document from its cache for every category after the first; its cached tokens count as ``cache_read``.
Replies are cached on disk by server, model, settings, prompt, document and category.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.types import Document
from rag_bench.remote.chat import ChatClient, ChatSettings
from rag_bench.synthesize.anthropic import check_synth
from rag_bench.synthesize.candidates import SynthGeneratorConfig
from rag_bench.synthesize.prompt import ASK, CATEGORIES, INSTRUCTIONS, AskedCandidates, document_block


@dataclass
class OpenAISynthConfig(ChatSettings, SynthGeneratorConfig):
    """An OpenAI-compatible chat model: instructions and document first, one request per category."""

    name: str = "openai"
    max_tokens: int = 1024  # reply limit per request
    per_request: int = 3  # questions asked for per (document, category)
    categories: dict[str, str] = field(default_factory=lambda: dict(CATEGORIES))  # category -> what to ask for

    def __post_init__(self) -> None:
        ChatSettings.__post_init__(self)
        check_synth(self)


class OpenAICandidates(AskedCandidates):
    """Asks for ``per_request`` questions per document and category."""

    name = "openai"

    def __init__(self, cfg: OpenAISynthConfig, documents, cache: DiskCache) -> None:
        self.chat = ChatClient(cfg, "or use generator=replay with candidates written elsewhere")
        super().__init__(cfg, cache)
        self.key = digest("synthesize", self.chat.key, cfg.per_request, INSTRUCTIONS, ASK)
        self.concurrency = cfg.concurrency
        self.settings = {
            "name": "openai",
            "model": cfg.model,
            "base_url": self.chat.base_url,
            "max_tokens": cfg.max_tokens,
            "temperature": cfg.temperature,
            "per_request": cfg.per_request,
            "prompt": self.key[:16],
        }

    @property
    def usage(self) -> dict[str, int]:
        return self.chat.usage()

    @property
    def cost_usd(self) -> float | None:
        return self.chat.cost_usd

    def ask(self, doc: Document, kind: str) -> str:
        ask = ASK.format(n=self.cfg.per_request, kind=kind)
        return self.chat.reply(INSTRUCTIONS, f"{document_block(doc)}\n\n{ask}").text

    def close(self) -> None:
        self.chat.close()
