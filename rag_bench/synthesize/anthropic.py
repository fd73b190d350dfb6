"""``generator=anthropic``: candidate questions from the Messages API, the document as a cached prefix.

One request per (document, category): the document block carries ``cache_control``, so every
category after the first reads it from the prompt cache. The reply is asked to be JSON Lines,
``{"question", "excerpt", "answer"}`` each, the excerpt copied verbatim; a line that is not such
an object becomes a candidate with a ``problem`` (rejected, with the line, in the rejects file).
Replies are kept in the disk cache, so a rerun sends nothing. The estimated cost is ``remote/prices.py``'s
formula with ``configs/prices.yaml`` (None for a model not listed there).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from rag_bench.chunk.contexts import document_hash
from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Document
from rag_bench.remote.anthropic import MessagesClient
from rag_bench.remote.prices import llm_cost, model_price
from rag_bench.remote.settings import ApiSettings
from rag_bench.synthesize.candidates import Candidate, SynthGeneratorConfig

INSTRUCTIONS = (
    "You write test questions for a search engine over a document collection. Each question must be "
    "answerable from one short passage of the document, and you quote that passage exactly."
)
ASK = (
    "Write {n} different questions of this kind: {kind}.\n"
    "Each must be answerable from a single passage of the document above. Reply with {n} lines of JSON "
    'and nothing else, one object per line: {{"question": "...", "excerpt": "...", "answer": "..."}}. '
    "The excerpt is the passage that answers the question, copied character for character from the "
    "document (one or two sentences, at most 300 characters); the answer is short."
)
CATEGORIES = {  # the default kinds of question, one request per document and kind
    "identifier": "a question naming a specific identifier, code, number or name that appears in the passage",
    "paraphrase": "a question a user would ask in their own words, sharing few words with the passage",
}
USAGE = {"input": "input_tokens", "output": "output_tokens"}
CACHE_USAGE = {"cache_write": "cache_creation_input_tokens", "cache_read": "cache_read_input_tokens"}


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
        for name in ("max_tokens", "per_request"):
            if getattr(self, name) < 1:
                raise ConfigError(f"generator.{name} ({getattr(self, name)}) must be at least 1")
        if not self.categories:
            raise ConfigError("generator.categories is empty; give at least one category: instruction")


class AnthropicCandidates:
    """Asks for ``per_request`` questions per document and category."""

    def __init__(self, cfg, documents, cache: DiskCache) -> None:
        self._api = MessagesClient(cfg, "or use generator=replay with candidates written elsewhere")
        self.cfg, self.cache = cfg, cache
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

    def candidates(self, documents, bar) -> Iterator[Candidate]:
        for doc in documents:
            for category, kind in self.cfg.categories.items():
                key = digest(self.key, document_hash(doc.text), category, kind)
                cached = self.cache.get("synthesize", key)
                text = cached.decode("utf-8") if cached is not None else self._ask(doc, kind)
                if cached is None:
                    self.cache.put("synthesize", key, text.encode("utf-8"))
                yield from parse_reply(text, doc.id, category, f"anthropic {doc.id}/{category}")
                bar.update(1)

    def request(self, doc: Document, kind: str) -> dict:
        """The Messages API request body: the document block carries ``cache_control``."""
        document = {
            "type": "text",
            "text": f"<document>\n{doc.text}\n</document>",
            "cache_control": {"type": "ephemeral"},
        }
        ask = {"type": "text", "text": ASK.format(n=self.cfg.per_request, kind=kind)}
        return {
            "model": self.cfg.model,
            "max_tokens": self.cfg.max_tokens,
            "system": INSTRUCTIONS,
            "messages": [{"role": "user", "content": [document, ask]}],
        }

    def _ask(self, doc: Document, kind: str) -> str:
        message = self._api.create(f"generator.model ({self.cfg.model!r})", **self.request(doc, kind))
        self.usage["requests"] += 1
        for name, attr in (USAGE | CACHE_USAGE).items():
            self.usage[name] += getattr(message.usage, attr, 0) or 0
        return "".join(b.text for b in message.content if b.type == "text")

    def close(self) -> None:
        self._api.close()


def parse_reply(text: str, doc_id: str, category: str, origin: str) -> Iterator[Candidate]:
    """One candidate per non-blank reply line (code fences ignored); a bad line is a candidate with a problem."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("```")]
    for number, line in enumerate(lines, start=1):
        where = f"{origin} line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            obj, problem = None, f"reply line is not JSON ({exc.msg}): {line[:60]!r}"
        else:
            ok = isinstance(obj, dict) and all(isinstance(obj.get(k), str) for k in ("question", "excerpt"))
            problem = None if ok else f"reply line is not an object with string question and excerpt: {line[:60]!r}"
        if problem is not None:
            yield Candidate(doc_id, "", "", category=category, origin=where, problem=problem)
            continue
        answer = obj.get("answer") if isinstance(obj.get("answer"), str) and obj["answer"].strip() else None
        yield Candidate(doc_id, obj["question"], obj["excerpt"], answer, category, where)
