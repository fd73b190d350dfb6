"""What every LLM rewriter asks and how its reply is read: one request per (question, kind), the instructions
and the knowledge base's document titles first (a system prompt shared by every request: the prefix a provider
caches), the question and the ask last; each reply kept in the disk cache before it is parsed, so a rerun, or a
run resumed after a failure, sends only the requests it lacks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_bench.core.cache import DiskCache
from rag_bench.core.types import Dataset, Question
from rag_bench.remote.chat import CachedAsker, cached_reply
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


def user_prompt(question: Question, kind: str, limit: int) -> str:
    """The part of a request that changes: the question, then what to write."""
    return f"<question>\n{question.text}\n</question>\n\n{ASK[kind].format(n=limit)}"


class AskedRewriter(CachedAsker):
    """The loop every LLM rewriter shares; a subclass answers ``reply_key`` (everything the reply depends on)
    and ``ask`` (one request, its tokens added to ``usage``)."""

    kinds = ("paraphrase", "hyde", "decompose", "keywords")

    def __init__(self, cfg, dataset: Dataset, cache: DiskCache) -> None:
        super().__init__(cfg, cache)
        self.system = system_prompt(dataset, cfg.titles)
        self.usage = RewriteUsage()

    def reply_key(self, question: Question, kind: str, limit: int) -> str:
        raise NotImplementedError

    def ask(self, question: Question, kind: str, limit: int) -> str:
        raise NotImplementedError

    def rewrite(self, question: Question, kind: str, limit: int) -> Sequence[str]:
        key = self.reply_key(question, kind, limit)
        reply, cached = cached_reply(self.cache, "rewrites", key, lambda: self.ask(question, kind, limit))
        if cached:
            self.usage.served_from_cache()
        return parse_reply(kind, reply)
