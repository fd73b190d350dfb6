"""``generator=anthropic``: rewrites from the Messages API through the official SDK (optional extra ``generate``).

One request per (question, kind). The instructions and the knowledge base's document titles
form a system prompt shared by every request, marked with ``cache_control`` so the API bills it
at the cache-read price after the first request (the API caches a prefix only above a
model-dependent minimum length, 1,024 to 4,096 tokens; below it the mark is ignored). Replies are
kept in the disk cache by (model, settings, prompt, question), so a rerun, or a run resumed after a
failure, sends only the requests it lacks. The key comes from ``ANTHROPIC_API_KEY`` alone and is
never written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Dataset, Question
from rag_bench.remote.anthropic import MessagesClient
from rag_bench.remote.settings import ApiSettings
from rag_bench.rewrite.cost import RewriteUsage

INSTRUCTIONS = (
    "You rewrite questions that users ask a search engine over a company knowledge base, so that the "
    "search finds the passages that answer them. Keep every name, identifier, code, version and number "
    "of the question exactly as written. Reply with the rewrite only: no preamble, no explanation."
)
ASK = {
    "paraphrase": (
        "Write {n} different rewordings of the question, each a complete question in the words the "
        "knowledge base's documents would likely use. One per line, without numbering."
    ),
    "hyde": (
        "Write a short passage (two to four sentences) in the style of the knowledge base's documents "
        "that would answer the question. Where you do not know a fact, write a plausible one: the "
        "passage is used only to search."
    ),
    "decompose": (
        "If the question asks several things, split it into at most {n} self-contained sub-questions, "
        "each answerable from one passage, naming the subject instead of using pronouns. One per line, "
        "without numbering. If it asks one thing, reply with the question unchanged."
    ),
    "keywords": (
        "Write a keyword search query for the question: its key terms, names and identifiers, and the "
        "terms the documents would likely use for them. One line, terms separated by spaces."
    ),
}
_MARKER = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)]|\(\d+\))\s+")  # a list marker: "- ", "1. ", "(2) "


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
        if self.max_tokens < 1 or self.titles < 0:
            raise ConfigError(
                f"generator.max_tokens ({self.max_tokens}) must be at least 1 and generator.titles ({self.titles}) "
                "not negative"
            )
        if self.price_per_million is not None:
            raise ConfigError(
                "generator.price_per_million does not apply to Anthropic rewrites (input and output tokens are "
                "priced apart); set generator.input_price and generator.output_price instead"
            )


def system_prompt(dataset: Dataset, titles: int) -> str:
    """The shared, cached prefix: the instructions, then up to ``titles`` document titles."""
    names = [d.title or d.id for d in dataset.documents][:titles]
    if not names:
        return INSTRUCTIONS
    listed = "\n".join(f"- {name}" for name in names)
    return f'{INSTRUCTIONS}\n\n<knowledge_base documents="{len(dataset.documents)}">\n{listed}\n</knowledge_base>'


def parse_reply(kind: str, reply: str) -> list[str]:
    """A reply as rewrites: HyDE's whole reply is one passage; other kinds give one rewrite a line."""
    if kind == "hyde":
        text = " ".join(reply.split())
        return [text] if text else []
    lines = [" ".join(_MARKER.sub("", line).split()) for line in reply.splitlines()]
    return [line for line in lines if line][: 1 if kind == "keywords" else None]


class AnthropicRewriter:
    """Rewrites of every kind, one Messages API call per (question, kind); replies cached on disk."""

    kinds = ("paraphrase", "hyde", "decompose", "keywords")

    def __init__(self, cfg: AnthropicRewriterConfig, dataset: Dataset, cache: DiskCache) -> None:
        self._api = MessagesClient(cfg, "or use generator=offline (keywords, decompose) or generator=replay")
        self.cfg, self.cache = cfg, cache
        self.system = system_prompt(dataset, cfg.titles)
        self.usage = RewriteUsage()

    def request(self, question: Question, kind: str, limit: int) -> dict:
        """The Messages API request for one rewrite: the system prompt carries ``cache_control``."""
        ask = ASK[kind].format(n=limit)
        body = {
            "model": self.cfg.model,
            "max_tokens": self.cfg.max_tokens,
            "system": [{"type": "text", "text": self.system, "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": f"<question>\n{question.text}\n</question>\n\n{ask}"}],
        }
        return body if self.cfg.temperature is None else {**body, "temperature": self.cfg.temperature}

    def rewrite(self, question: Question, kind: str, limit: int) -> Sequence[str]:
        body = self.request(question, kind, limit)
        key = digest("anthropic-rewrite", body)
        cached = self.cache.get("rewrites", key)
        if cached is not None:
            self.usage.from_cache += 1
            return parse_reply(kind, cached.decode("utf-8"))
        message = self._api.create(f"generator.model ({self.cfg.model!r}) and generator.max_tokens", **body)
        self.usage.add(message.usage)
        reply = "".join(b.text for b in message.content if b.type == "text")
        self.cache.put("rewrites", key, reply.encode("utf-8"))
        return parse_reply(kind, reply)

    def close(self) -> None:
        self._api.close()
